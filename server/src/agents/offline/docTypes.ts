// What the documentation needs to know about a type, from the checker or from the syntax alone.
import { ts } from 'ts-morph';
import { isFunctionExpression } from './declarationLocator.js';
import type { FunctionLike } from './declarationLocator.js';

/** The facts about a type that choose a description. */
export type TypeShape =
  | { kind: 'void' | 'null' | 'boolean' | 'string' | 'number' | 'bigint' | 'any' | 'other' | 'this' | 'type-parameter' }
  | { kind: 'promise'; inner: TypeShape }
  | { kind: 'array'; element: TypeShape }
  | { kind: 'function'; parameterNames: string[] }
  | { kind: 'optional'; inner: TypeShape; missing: 'undefined' | 'null' }
  | { kind: 'named'; name: string; typeArguments: TypeShape[] }
  | { kind: 'literals'; values: string[] };

export interface TypeFacts {
  shape: TypeShape;
  /** The type as JSDoc writes it in JavaScript files; undefined when unknown. */
  jsdocType?: string;
}

export interface TypeSource {
  ofBinding(node: ts.ParameterDeclaration | ts.BindingElement, optional: boolean): TypeFacts;
  ofReturn(fn: FunctionLike): TypeFacts;
  /** The class a thrown value belongs to, when it is known. */
  thrownTypeName(expression: ts.Expression): string | undefined;
  isOptionalProperty(pattern: ts.ObjectBindingPattern, key: string): boolean;
}

const PRINT_FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope | ts.TypeFormatFlags.WriteArrowStyleSignature;

/** Types from the checker; any failure falls back to what the syntax says, one question at a time. */
export class CheckerTypes implements TypeSource {
  constructor(
    private readonly checker: ts.TypeChecker,
    private readonly syntax: SyntaxTypes,
  ) {}

  ofBinding(node: ts.ParameterDeclaration | ts.BindingElement, optional: boolean): TypeFacts {
    try {
      const type = this.checker.getTypeAtLocation(node.name);
      const shape = this.shape(type, 0);
      if (shape.kind === 'any') {
        // Unannotated JavaScript: the initializer may still say more than the checker's `any`.
        const fromSyntax = this.syntax.ofBinding(node, optional);
        if (fromSyntax.shape.kind !== 'any') return fromSyntax;
      }
      // A destructured object is documented property by property; its literal type would repeat them.
      const isPattern = ts.isObjectBindingPattern(node.name);
      const printed = isPattern && this.isAnonymousObject(this.checker.getNonNullableType(type)) ? 'object' : this.print(type, node, optional);
      const isRest = ts.isParameter(node) && node.dotDotDotToken !== undefined;
      if (isRest) {
        const element = shape.kind === 'array' ? this.print(this.elementType(type) ?? type, node, false) : '*';
        return { shape, jsdocType: `...${element}` };
      }
      return { shape, jsdocType: printed };
    } catch {
      return this.syntax.ofBinding(node, optional);
    }
  }

  ofReturn(fn: FunctionLike): TypeFacts {
    try {
      const signature = this.checker.getSignatureFromDeclaration(fn);
      if (!signature) return this.syntax.ofReturn(fn);
      const type = this.checker.getReturnTypeOfSignature(signature);
      return { shape: this.shape(type, 0), jsdocType: this.print(type, fn, false) };
    } catch {
      return this.syntax.ofReturn(fn);
    }
  }

  thrownTypeName(expression: ts.Expression): string | undefined {
    try {
      const type = this.checker.getBaseTypeOfLiteralType(this.checker.getTypeAtLocation(expression));
      if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return undefined;
      const symbol = type.aliasSymbol ?? type.getSymbol();
      if (symbol && !symbol.name.startsWith('__')) return symbol.name;
      return compactType(this.checker.typeToString(type, expression, PRINT_FLAGS));
    } catch {
      return this.syntax.thrownTypeName(expression);
    }
  }

  isOptionalProperty(pattern: ts.ObjectBindingPattern, key: string): boolean {
    try {
      const type = this.checker.getTypeAtLocation(pattern);
      const property = this.checker.getPropertyOfType(this.checker.getNonNullableType(type), key);
      return property !== undefined && (property.flags & ts.SymbolFlags.Optional) !== 0;
    } catch {
      return false;
    }
  }

  private elementType(type: ts.Type): ts.Type | undefined {
    if (!this.checker.isArrayType(type)) return undefined;
    return this.checker.getTypeArguments(type as ts.TypeReference)[0];
  }

  /** The type as a JSDoc `{…}` in a JavaScript file: `*` for any, long literal types collapsed to `object`. */
  private print(type: ts.Type, enclosing: ts.Node, optional: boolean): string {
    if (optional && type.isUnion()) {
      const defined = type.types.filter((member) => !(member.flags & ts.TypeFlags.Undefined));
      if (defined.length === 1 && defined[0]) return this.printCompact(defined[0], enclosing, 0);
      const text = this.printCompact(type, enclosing, 0);
      return text.replace(/(?<!\s)\s*\|\s*undefined\b/g, '').replace(/^undefined\s*\|\s*/, '');
    }
    return this.printCompact(type, enclosing, 0);
  }

  private printCompact(type: ts.Type, enclosing: ts.Node, depth: number): string {
    if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return '*';
    const text = compactType(this.checker.typeToString(type, enclosing, PRINT_FLAGS));
    if (this.isAnonymousObject(type) && text.length > 40) return 'object';
    if (text.length <= 60 || depth > 3) return text.length <= 60 ? text : '*';
    const typeArguments = this.typeArguments(type);
    const symbolName = type.getSymbol()?.name;
    if ((symbolName === 'Promise' || symbolName === 'PromiseLike') && typeArguments[0]) return `${symbolName}<${this.printCompact(typeArguments[0], enclosing, depth + 1)}>`;
    if (this.checker.isArrayType(type) && typeArguments[0]) {
      const element = this.printCompact(typeArguments[0], enclosing, depth + 1);
      return element.includes('|') ? `(${element})[]` : `${element}[]`;
    }
    if (type.isUnion()) {
      const members = type.types.map((member) => this.printCompact(member, enclosing, depth + 1)).join(' | ');
      return members.length <= 80 ? members : '*';
    }
    if (type.getCallSignatures().length > 0) return 'Function';
    if (type.flags & ts.TypeFlags.Object) return 'object';
    return text;
  }

  private isAnonymousObject(type: ts.Type): boolean {
    const symbol = type.getSymbol();
    return (type.flags & ts.TypeFlags.Object) !== 0 && !type.aliasSymbol && (symbol === undefined || symbol.name.startsWith('__')) && type.getCallSignatures().length === 0;
  }

  private shape(type: ts.Type, depth: number): TypeShape {
    const flags = type.flags;
    if (depth > 4) return { kind: 'other' };
    if (flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return { kind: 'any' };
    if (flags & (ts.TypeFlags.Void | ts.TypeFlags.Undefined | ts.TypeFlags.Never)) return { kind: 'void' };
    if (flags & ts.TypeFlags.Null) return { kind: 'null' };
    if (flags & (ts.TypeFlags.Boolean | ts.TypeFlags.BooleanLiteral)) return { kind: 'boolean' };
    if (flags & ts.TypeFlags.EnumLike && (type.aliasSymbol ?? type.getSymbol())) {
      return { kind: 'named', name: (type.aliasSymbol ?? type.getSymbol())?.name ?? 'enum', typeArguments: [] };
    }
    if (flags & (ts.TypeFlags.StringLiteral | ts.TypeFlags.NumberLiteral)) return { kind: 'literals', values: [this.checker.typeToString(type)] };
    if (flags & ts.TypeFlags.StringLike) return { kind: 'string' };
    if (flags & ts.TypeFlags.NumberLike) return { kind: 'number' };
    if (flags & ts.TypeFlags.BigIntLike) return { kind: 'bigint' };
    if (flags & ts.TypeFlags.TypeParameter) {
      return this.checker.typeToString(type) === 'this' ? { kind: 'this' } : { kind: 'type-parameter' };
    }
    if (type.isUnion()) {
      const present = type.types.filter((member) => !(member.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null | ts.TypeFlags.Void)));
      const missing = type.types.some((member) => member.flags & ts.TypeFlags.Null) ? 'null' : 'undefined';
      let inner: TypeShape;
      if (present.length === 0) return { kind: 'void' };
      if (present.every((member) => member.flags & ts.TypeFlags.BooleanLiteral)) inner = { kind: 'boolean' };
      else if (present.length === 1 && present[0]) inner = this.shape(present[0], depth + 1);
      else if (present.every((member) => member.flags & (ts.TypeFlags.StringLiteral | ts.TypeFlags.NumberLiteral))) {
        inner = { kind: 'literals', values: present.map((member) => this.checker.typeToString(member)) };
      } else if (type.aliasSymbol) inner = { kind: 'named', name: type.aliasSymbol.name, typeArguments: [] };
      else inner = { kind: 'other' };
      return present.length < type.types.length ? { kind: 'optional', inner, missing } : inner;
    }
    const symbol = type.getSymbol();
    const typeArguments = this.typeArguments(type);
    if ((symbol?.name === 'Promise' || symbol?.name === 'PromiseLike') && typeArguments[0]) {
      return { kind: 'promise', inner: this.shape(typeArguments[0], depth + 1) };
    }
    if (this.checker.isArrayType(type) && typeArguments[0]) return { kind: 'array', element: this.shape(typeArguments[0], depth + 1) };
    const callSignatures = type.getCallSignatures();
    if (callSignatures.length > 0 && !(symbol && symbol.flags & ts.SymbolFlags.Class)) {
      return { kind: 'function', parameterNames: (callSignatures[0]?.getParameters() ?? []).map((parameter) => parameter.name) };
    }
    const named = type.aliasSymbol ?? symbol;
    if (named && !named.name.startsWith('__')) {
      return { kind: 'named', name: named.name, typeArguments: typeArguments.map((argument) => this.shape(argument, depth + 1)) };
    }
    return { kind: 'other' };
  }

  private typeArguments(type: ts.Type): readonly ts.Type[] {
    if (type.flags & ts.TypeFlags.Object && (type as ts.ObjectType).objectFlags & ts.ObjectFlags.Reference) {
      return this.checker.getTypeArguments(type as ts.TypeReference);
    }
    return type.aliasTypeArguments ?? [];
  }
}

/** Types read from annotations and initializers only, for when the checker is unavailable. */
export class SyntaxTypes implements TypeSource {
  constructor(
    private readonly root: ts.SourceFile,
    private readonly javascript: boolean,
  ) {}

  ofBinding(node: ts.ParameterDeclaration | ts.BindingElement, _optional: boolean): TypeFacts {
    const annotation = ts.isParameter(node) ? node.type : undefined;
    const shape = annotation ? shapeOfTypeNode(annotation) : node.initializer ? shapeOfInitializer(node.initializer) : { kind: 'any' as const };
    const isRest = ts.isParameter(node) && node.dotDotDotToken !== undefined;
    let jsdocType = annotation ? compactType(annotation.getText(this.root)) : jsdocTypeOfShape(shape);
    if (isRest) {
      const element = annotation && ts.isArrayTypeNode(annotation) ? compactType(annotation.elementType.getText(this.root)) : '*';
      jsdocType = `...${element}`;
    }
    return { shape, jsdocType: this.javascript ? jsdocType : undefined };
  }

  ofReturn(fn: FunctionLike): TypeFacts {
    const isAsync = ts.getCombinedModifierFlags(fn) & ts.ModifierFlags.Async;
    if (fn.type) return { shape: shapeOfTypeNode(fn.type), jsdocType: compactType(fn.type.getText(this.root)) };
    let returnsValue = fn.body !== undefined && !ts.isBlock(fn.body);
    if (fn.body && ts.isBlock(fn.body)) {
      const visit = (node: ts.Node): void => {
        if (returnsValue || ts.isFunctionLike(node) || ts.isClassLike(node)) return;
        if (ts.isReturnStatement(node) && node.expression) returnsValue = true;
        else ts.forEachChild(node, visit);
      };
      ts.forEachChild(fn.body, visit);
    }
    const inner: TypeShape = returnsValue ? { kind: 'any' } : { kind: 'void' };
    return isAsync ? { shape: { kind: 'promise', inner }, jsdocType: returnsValue ? 'Promise<*>' : 'Promise<void>' } : { shape: inner, jsdocType: returnsValue ? '*' : 'void' };
  }

  thrownTypeName(expression: ts.Expression): string | undefined {
    if (ts.isStringLiteralLike(expression) || ts.isTemplateExpression(expression)) return 'string';
    return undefined;
  }

  isOptionalProperty(): boolean {
    return false;
  }
}

function shapeOfTypeNode(node: ts.TypeNode): TypeShape {
  switch (node.kind) {
    case ts.SyntaxKind.BooleanKeyword:
      return { kind: 'boolean' };
    case ts.SyntaxKind.StringKeyword:
      return { kind: 'string' };
    case ts.SyntaxKind.NumberKeyword:
      return { kind: 'number' };
    case ts.SyntaxKind.BigIntKeyword:
      return { kind: 'bigint' };
    case ts.SyntaxKind.VoidKeyword:
    case ts.SyntaxKind.UndefinedKeyword:
    case ts.SyntaxKind.NeverKeyword:
      return { kind: 'void' };
    case ts.SyntaxKind.AnyKeyword:
    case ts.SyntaxKind.UnknownKeyword:
      return { kind: 'any' };
    case ts.SyntaxKind.ThisType:
      return { kind: 'this' };
  }
  if (ts.isParenthesizedTypeNode(node)) return shapeOfTypeNode(node.type);
  if (ts.isTypeOperatorNode(node)) return shapeOfTypeNode(node.type);
  if (ts.isArrayTypeNode(node)) return { kind: 'array', element: shapeOfTypeNode(node.elementType) };
  if (ts.isFunctionTypeNode(node)) return { kind: 'function', parameterNames: node.parameters.map((parameter) => parameter.name.getText()) };
  if (ts.isLiteralTypeNode(node)) {
    if (node.literal.kind === ts.SyntaxKind.TrueKeyword || node.literal.kind === ts.SyntaxKind.FalseKeyword) return { kind: 'boolean' };
    if (node.literal.kind === ts.SyntaxKind.NullKeyword) return { kind: 'null' };
    return { kind: 'literals', values: [node.literal.getText()] };
  }
  if (ts.isTypeReferenceNode(node)) {
    const name = node.typeName.getText();
    const typeArguments = (node.typeArguments ?? []).map(shapeOfTypeNode);
    if ((name === 'Promise' || name === 'PromiseLike') && typeArguments[0]) return { kind: 'promise', inner: typeArguments[0] };
    if ((name === 'Array' || name === 'ReadonlyArray') && typeArguments[0]) return { kind: 'array', element: typeArguments[0] };
    return { kind: 'named', name: name.split('.').pop() ?? name, typeArguments };
  }
  if (ts.isUnionTypeNode(node)) {
    const members = node.types.map(shapeOfTypeNode);
    const present = members.filter((member) => member.kind !== 'void' && member.kind !== 'null');
    const missing = members.some((member) => member.kind === 'null') ? 'null' : 'undefined';
    let inner: TypeShape;
    if (present.length === 0) return { kind: 'void' };
    if (present.length === 1 && present[0]) inner = present[0];
    else if (present.every((member) => member.kind === 'boolean')) inner = { kind: 'boolean' };
    else if (present.every((member) => member.kind === 'literals')) inner = { kind: 'literals', values: present.flatMap((member) => (member.kind === 'literals' ? member.values : [])) };
    else inner = { kind: 'other' };
    return present.length < members.length ? { kind: 'optional', inner, missing } : inner;
  }
  return { kind: 'other' };
}

function shapeOfInitializer(expression: ts.Expression): TypeShape {
  if (expression.kind === ts.SyntaxKind.TrueKeyword || expression.kind === ts.SyntaxKind.FalseKeyword) return { kind: 'boolean' };
  if (ts.isNumericLiteral(expression) || (ts.isPrefixUnaryExpression(expression) && ts.isNumericLiteral(expression.operand))) return { kind: 'number' };
  if (ts.isStringLiteralLike(expression) || ts.isTemplateExpression(expression)) return { kind: 'string' };
  if (ts.isArrayLiteralExpression(expression)) return { kind: 'array', element: { kind: 'any' } };
  if (isFunctionExpression(expression)) return { kind: 'function', parameterNames: expression.parameters.map((parameter) => parameter.name.getText()) };
  if (ts.isNewExpression(expression)) return { kind: 'named', name: expression.expression.getText(), typeArguments: [] };
  return { kind: 'any' };
}

function jsdocTypeOfShape(shape: TypeShape): string {
  switch (shape.kind) {
    case 'boolean':
    case 'string':
    case 'number':
      return shape.kind;
    case 'array':
      return `${jsdocTypeOfShape(shape.element)}[]`;
    case 'function':
      return 'Function';
    case 'named':
      return shape.name;
    default:
      return '*';
  }
}

/** A printed type on one line, without `import("…").` qualifiers. */
export function compactType(text: string): string {
  return text
    .replace(/import\((?:"[^"]*"|'[^']*')\)\./g, '')
    .replace(/\s+/g, ' ')
    .trim();
}
