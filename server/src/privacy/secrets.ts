// Finds credentials in text (provider tokens, private keys, passwords in URLs and connection strings, secret-named and high-entropy assignments) and redacts them.

/** One credential found in a text: where it is, what it is and its value. */
export interface SecretFinding {
  kind: string;
  value: string;
  start: number;
  end: number;
}

/**
 * One detector: a pattern whose `group` (0: the whole match) is the secret, and an optional check on the match
 * that turns down what only looks like one (placeholders, identifiers, hashes).
 */
interface Detector {
  kind: string | ((match: RegExpExecArray) => string | undefined);
  pattern: RegExp;
  group?: number;
  accept?: (value: string, match: RegExpExecArray, text: string) => boolean;
  /**
   * Strings one of which every match of `pattern` contains: a text holding none of them is not searched. For a
   * pattern that ignores case they are in lower case and looked for in the lower-cased text. Given only where the
   * search costs clearly more than the `includes` (a pattern with no literal start, which is tried at every
   * position, or one V8 scans slowly), and absent from most code.
   */
  needles?: readonly string[];
}

// ---------------------------------------------------------------------------------------------------------------
// What a value must look like

/** Shannon entropy of a string, in bits per character. */
export function shannonEntropy(value: string): number {
  if (value.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const c of value) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** How often adjacent characters change class (lower, upper, digit, other): random strings change about every other character, words and identifiers seldom. */
function classChanges(value: string): number {
  const classOf = (c: string): number => (/[a-z]/.test(c) ? 0 : /[A-Z]/.test(c) ? 1 : /[0-9]/.test(c) ? 2 : 3);
  let changes = 0;
  for (let i = 1; i < value.length; i++) if (classOf(value[i - 1] as string) !== classOf(value[i] as string)) changes++;
  return value.length > 1 ? changes / (value.length - 1) : 0;
}

/** Values that stand for a secret without being one: template slots, environment lookups, masks. */
const PLACEHOLDER = /\$\{|\{\{|\$\(|%\(|^%s$|^<[^<>]*>$|^\$[A-Za-z_]\w*$|^\*+$|^x{3,}$|\.{3}|…|process\.env|import\.meta\.env|os\.environ|getenv|\benv\(|\[redacted/i;

/** Values that are obviously not secret, whatever the key is called. */
const SENTINELS: ReadonlySet<string> = new Set(
  'null undefined none nil true false empty string text required optional hidden redacted secret password passwd token apikey api-key api_key changeit example sample placeholder your-password your-token your-api-key dummy'.split(' '),
);

/** An environment variable's name (`OPENAI_API_KEY`), which code holds to look the secret up, not the secret. */
const ENV_NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;
/** Prose, such as a label or a message in a locale file: words of letters separated by spaces. */
const PROSE = /^[\p{L}][\p{L}'’-]*(?:[,.:;!?]?[ ]+[\p{L}][\p{L}'’-]*)+[ .:!?]*$/u;
/** A member path (`config.db.password`) or an identifier: a reference in code, not a value. */
const MEMBER_PATH = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/;

function isPathOrUrl(value: string): boolean {
  return /^(?:[a-z][a-z0-9+.-]*:)?\/\//i.test(value) || /^(?:\.{1,2}\/|\/|~\/|@[\w-]+\/)/.test(value) || /\.(?:[jt]sx?|mjs|cjs|json|ya?ml|md|html?|css|png|jpe?g|svg|gif)$/i.test(value);
}

/**
 * Strength of the evidence a key name gives: a password, a strong secret word (secret, token, api key), a weak one
 * (auth, credentials), or a bare `…Key`, which names secrets as often as map keys and needs a random-looking value.
 */
type KeyEvidence = 'password' | 'strong' | 'weak' | 'key';

/** Whether a value assigned to a secret-named key is plausibly the secret itself. */
function plausibleSecret(raw: string, evidence: KeyEvidence): boolean {
  const value = raw.trim();
  if (value.length < 4 || PLACEHOLDER.test(value) || SENTINELS.has(value.toLowerCase())) return false;
  // An environment variable's name is what code holds to look a token up; a password may look like one.
  if ((ENV_NAME.test(value) && evidence !== 'password') || isPathOrUrl(value)) return false;
  // A label ("Password", "Mot de passe") or a sentence about the secret.
  if (PROSE.test(value) || (/^[A-Z]?[a-z]+$/.test(value) && evidence !== 'password' && value.length < 8)) return false;
  if (evidence === 'password') return !/^[A-Z][a-z]+(?: [a-z]+)*:?$/.test(value) || /\d/.test(value);
  if (/\s/.test(value) || MEMBER_PATH.test(value)) return false;
  if (evidence === 'strong') return value.length >= 6;
  if (evidence === 'key') {
    // Hex or random-looking, or as complex as a chosen password (lower, upper, digit and a symbol).
    const complex = value.length >= 12 && /[a-z]/.test(value) && /[A-Z]/.test(value) && /\d/.test(value) && /[^\w.:/-]/.test(value);
    return complex || (value.length >= 16 && ((/^[0-9a-f]+$/i.test(value) && value.length >= 32) || looksRandom(value) || (/\d/.test(value) && /[A-Za-z]/.test(value) && classChanges(value) >= 0.35 && !isWordy(value))));
  }
  return value.length >= 8 && /\d/.test(value) && /[A-Za-z]/.test(value);
}

/** Suffixes that keep a key's meaning: `passwordValue`, `secret_key_base`, `TOKEN_B64`. */
const KEY_SUFFIXES: ReadonlySet<string> = new Set(['value', 'str', 'string', 'b64', 'base64', 'hex', 'raw', 'plain', 'enc', 'encoded', 'base', 'text', 'txt']);
const PASSWORD_WORDS: ReadonlySet<string> = new Set(['password', 'passwd', 'passphrase', 'pwd', 'pass', 'passwort', 'contrasena', 'senha', 'motdepasse']);
/** Words before `…Key` that make it anything but a secret: map, cache and database keys, public keys. */
const NOT_SECRET_KEYS: ReadonlySet<string> = new Set([
  'cache', 'primary', 'foreign', 'sort', 'partition', 'map', 'object', 'react', 'i18n', 'translation', 'hot', 'public', 'publishable', 'pub',
  'idempotency', 's3', 'row', 'column', 'query', 'route', 'lookup', 'hash', 'dedupe', 'unique', 'composite', 'index', 'shortcut', 'hotkey', 'keyboard', 'group',
  'local', 'redis', 'bucket', 'field', 'property', 'prop', 'item', 'list', 'entry', 'table', 'cursor', 'sequence', 'locale', 'message', 'label', 'name', 'enum',
]);
/** Words that make `…_key` a secret key rather than a map key. */
const KEY_QUALIFIERS: ReadonlySet<string> = new Set([
  'access', 'private', 'secret', 'auth', 'signing', 'sign', 'encryption', 'encrypt', 'crypto', 'master', 'session', 'app', 'license', 'licence',
  'client', 'account', 'service', 'storage', 'subscription', 'admin', 'hmac', 'shared', 'consumer', 'webhook', 'jwt', 'cookie', 'cipher', 'aes', 'kms',
]);

/** The words of a key name: `dbPassword` → db password, `AWS_SECRET_ACCESS_KEY` → aws secret access key. */
function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])(?=[A-Z][a-z])/g, '$1 ')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** What a key name says its value is, or undefined when it says nothing about secrets. */
export function secretKeyKind(key: string): { kind: string; evidence: KeyEvidence } | undefined {
  const words = keyWords(key);
  while (words.length > 1 && KEY_SUFFIXES.has(words.at(-1) as string)) words.pop();
  const last = words.at(-1);
  const previous = words.at(-2);
  if (last === undefined) return undefined;
  if (PASSWORD_WORDS.has(last)) return { kind: 'password', evidence: 'password' };
  if (last === 'secret' || last === 'secretkey' || last === 'clientsecret') return { kind: 'secret', evidence: 'strong' };
  if (last === 'token' || last === 'apitoken' || last === 'accesstoken' || last === 'authtoken' || last === 'pat') return { kind: 'token', evidence: 'strong' };
  if (last === 'apikey' || (last === 'key' && previous === 'api')) return { kind: 'api-key', evidence: 'strong' };
  if (last === 'key' && previous !== undefined && KEY_QUALIFIERS.has(previous)) return { kind: 'secret', evidence: 'strong' };
  if (last === 'privatekey' || last === 'accesskey' || last === 'secretaccesskey') return { kind: 'secret', evidence: 'strong' };
  if (['credentials', 'credential', 'creds', 'auth', 'apisecret', 'pin'].includes(last)) return { kind: 'secret', evidence: 'weak' };
  // Run-together names: PGPASSWORD, MYSQL_ROOTPASSWORD, githubtoken.
  if (/(?:password|passwd)$/.test(last)) return { kind: 'password', evidence: 'password' };
  if (/(?:secret|token|apikey)$/.test(last) && last.length > 6) return { kind: last.endsWith('apikey') ? 'api-key' : last.endsWith('token') ? 'token' : 'secret', evidence: 'strong' };
  if (last === 'key' && !words.some((word) => NOT_SECRET_KEYS.has(word))) return { kind: 'secret', evidence: 'key' };
  return undefined;
}

/** The literal forms of a base64-encoded file, which are data rather than keys. */
const ENCODED_FILE = /^(?:iVBORw0KGgo|\/9j\/|R0lGOD|UklGR|PHN2Zy|PD94bW|JVBERi0|d09GR|AAEAAA|T1RUTw)/;
/** Identifiers as random as keys but public by design: Stripe publishable keys and object ids, IPFS content ids. */
const PUBLIC_ID = /^(?:pk_(?:live|test)_|(?:price|prod|cus|sub|pi|seti|ch|in|evt|acct|txn|src|card|pm|plan|po|re|tr)_[0-9A-Za-z]{14,}$|Qm[1-9A-HJ-NP-Za-km-z]{44}$)/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a literal looks like a random credential: long, mixing letters and digits in no readable pattern, with
 * a high Shannon entropy for its length. Hashes (hex alone), UUIDs, integrity strings, paths and encoded files do not.
 */
export function looksRandom(value: string): boolean {
  if (value.length < 20 || value.length > 4_096) return false;
  // A cookie as written to document.cookie (`prefs=eyJ…`) is judged by its value.
  const json = base64Json(value) ?? base64Json(value.replace(/^[A-Za-z_][\w.-]*=/, ''));
  if (json !== undefined) return findSecrets(json).length > 0;
  if (PUBLIC_ID.test(value) || UUID.test(value) || /^[0-9a-f]+$/i.test(value) || /^(?:sha\d+|md5)[-:]/i.test(value) || ENCODED_FILE.test(value) || isPathOrUrl(value)) return false;
  if (/^[A-Za-z_$][\w$]*(?:[.-][A-Za-z_$][\w$]*)*$/.test(value) && (!/\d/.test(value) || isWordy(value))) return false;
  const lower = /[a-z]/.test(value);
  const upper = /[A-Z]/.test(value);
  const digit = /[0-9]/.test(value);
  const classes = Number(lower) + Number(upper) + Number(digit);
  if (classes < 2 || (classes === 2 && value.length < 32)) return false;
  const threshold = Math.min(0.8 * Math.log2(value.length), 4.2);
  return shannonEntropy(value) >= threshold && classChanges(value) >= 0.25;
}

/** Whether base64 lines joined (`text`, no white space) are random data: a key's body, not a repeated or wordy run. */
function randomBlock(text: string): boolean {
  const sample = text.slice(0, 4_096);
  return /[a-z]/.test(sample) && /[A-Z]/.test(sample) && /\d/.test(sample) && shannonEntropy(sample) >= 5 && classChanges(sample) >= 0.3;
}

/**
 * The JSON a base64 (or base64url) value encodes, when it encodes an object or array of printable text: a cookie or
 * a state parameter, which anyone can read, unlike a key. Undefined for anything else.
 */
function base64Json(value: string): string | undefined {
  if (!/^(?:eyJ|eyI|W3|WyJ|ewo|ewog|e30)/.test(value) || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) return undefined;
  const decoded = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
  // A cut value ends mid-token: what is readable up to there must be JSON-shaped and printable.
  if (!/^\s*[[{]/.test(decoded) || /[^\x20-\x7e\s\u00a0-\uffff]|\ufffd/.test(decoded)) return undefined;
  return decoded;
}

/** Mostly made of pronounceable words (`getUserProfileById2`, `HTTPServerError500Handler`): a name, not a key. */
function isWordy(value: string): boolean {
  const words = (value.match(/[A-Z]?[a-z]{2,}|[A-Z]{2,}(?![a-z])/g) ?? []).filter((word) => /[aeiouy]/i.test(word));
  const letters = words.reduce((sum, word) => sum + word.length, 0);
  return letters / value.length >= 0.7 && (value.match(/\d+/g) ?? []).length <= 2;
}

// ---------------------------------------------------------------------------------------------------------------
// The detectors, in the order they run: the most specific first, so a key inside a connection string is named by
// what it is, and later detectors see the markers of earlier ones (which they leave alone).

/** A secret-named key in code, JSON, YAML or .env: `dbPassword`, `"api_key"`, `GITHUB_TOKEN`, `spring.datasource.password`. */
const KEY = String.raw`(?<![\w$.-])([A-Za-z_$][\w$.-]*?)`;
/** Between a key and its value: an optional closing quote or bracket, an optional type annotation, the operator. */
const ASSIGN = String.raw`["'\x60]?\]?(?:\s*:\s*[A-Za-z_$][\w$<>\[\]| ]*?(?=\s*=))?\s*(?:===?|!==?|:=|=>|\?\?=|\|\|=|=|:)\s*`;
/** The needles of the patterns that need a quoted value. */
const QUOTES: readonly string[] = ['"', "'", '`'];
const QUOTED = String.raw`(["'\x60])((?:(?!\2)[^\\\n]|\\.)+)\2`;

/** Provider tokens, each by its documented prefix (needles as written: these patterns are case-sensitive). */
const PROVIDERS: readonly { kind: string; pattern: string; flags?: string; accept?: (value: string) => boolean; needles?: readonly string[] }[] = [
  { kind: 'anthropic-key', pattern: String.raw`\bsk-ant-[A-Za-z0-9_-]{20,}` },
  // Project, service-account and admin keys carry hyphens inside; legacy keys are one run of letters and digits.
  { kind: 'openai-key', pattern: String.raw`\bsk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{20,}(?![\w-]))` },
  { kind: 'aws-access-key', pattern: String.raw`\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}\b` },
  { kind: 'github-token', pattern: String.raw`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})\b` },
  { kind: 'gitlab-token', pattern: String.raw`\bgl(?:pat|ptt|dt|rt|cbt|oas|imt|ft|agent|soat)-[A-Za-z0-9_-]{20,}` },
  { kind: 'slack-webhook', pattern: String.raw`https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20,}` },
  { kind: 'slack-token', pattern: String.raw`\bxox[abposre]-[A-Za-z0-9-]{10,}` },
  { kind: 'stripe-key', pattern: String.raw`\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b|\bwhsec_[A-Za-z0-9]{20,}\b` },
  { kind: 'google-api-key', pattern: String.raw`\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])`, needles: ['AIza'] },
  { kind: 'google-oauth-secret', pattern: String.raw`\bGOCSPX-[A-Za-z0-9_-]{20,}`, needles: ['GOCSPX-'] },
  { kind: 'google-refresh-token', pattern: String.raw`\b1//0[A-Za-z0-9_-]{30,}`, needles: ['1//0'] },
  { kind: 'twilio-key', pattern: String.raw`\bSK[0-9a-fA-F]{32}\b`, needles: ['SK'] },
  { kind: 'sendgrid-key', pattern: String.raw`\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`, needles: ['SG.'] },
  { kind: 'npm-token', pattern: String.raw`\bnpm_[A-Za-z0-9]{36}\b` },
  { kind: 'pypi-token', pattern: String.raw`\bpypi-AgE[A-Za-z0-9_-]{50,}` },
  { kind: 'huggingface-token', pattern: String.raw`\bhf_[A-Za-z0-9]{30,}\b`, needles: ['hf_'] },
  { kind: 'shopify-token', pattern: String.raw`\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b` },
  { kind: 'digitalocean-token', pattern: String.raw`\bdo[por]_v1_[a-f0-9]{64}\b` },
  { kind: 'mailgun-key', pattern: String.raw`\bkey-[0-9a-f]{32}\b`, needles: ['key-'] },
  { kind: 'databricks-token', pattern: String.raw`\bdapi[a-f0-9]{32}(?:-\d)?\b`, needles: ['dapi'] },
  { kind: 'square-token', pattern: String.raw`\bsq0(?:atp|csp)-[A-Za-z0-9_-]{22,}` },
  // Also inside a bot URL (`/bot123456789:AA…/sendMessage`), where no word boundary comes before the digits.
  { kind: 'telegram-token', pattern: String.raw`(?<!\d)\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])`, needles: [':AA'] },
  { kind: 'discord-token', pattern: String.raw`\b[MN][A-Za-z\d]{23,25}\.[\w-]{6}\.[\w-]{27,}` },
  { kind: 'discord-webhook', pattern: String.raw`https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{30,}` },
  { kind: 'newrelic-key', pattern: String.raw`\bNRAK-[A-Z0-9]{27}\b` },
  { kind: 'sentry-token', pattern: String.raw`\bsntry[su]_[A-Za-z0-9+/=_-]{40,}` },
  { kind: 'linear-key', pattern: String.raw`\blin_api_[A-Za-z0-9]{40}\b`, needles: ['lin_api_'] },
  { kind: 'notion-token', pattern: String.raw`\bntn_[A-Za-z0-9]{40,}\b` },
  { kind: 'vault-token', pattern: String.raw`\bhv[sbr]\.[A-Za-z0-9_-]{24,}` },
  { kind: 'postman-key', pattern: String.raw`\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b`, needles: ['PMAK-'] },
  { kind: 'grafana-token', pattern: String.raw`\bgl(?:c|sa)_[A-Za-z0-9+/=_]{32,}`, needles: ['glc_', 'glsa_'] },
  { kind: 'atlassian-token', pattern: String.raw`\bATATT3[A-Za-z0-9_=-]{60,}`, needles: ['ATATT3'] },
  { kind: 'doppler-token', pattern: String.raw`\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}`, needles: ['dp.'] },
  { kind: 'age-key', pattern: String.raw`\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b`, needles: ['AGE-SECRET-KEY-1'] },
  { kind: 'slack-token', pattern: String.raw`\bxapp-\d-[A-Z0-9]+-\d+-[a-f0-9]{32,}`, needles: ['xapp-'] },
  { kind: 'jwt', pattern: String.raw`\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}` },
];

/** Global, with match indices (`d`), so a capture group's place is known exactly. */
function regex(source: string, flags = ''): RegExp {
  return new RegExp(source, `gd${flags}`);
}

function lineAround(text: string, index: number): string {
  const start = text.lastIndexOf('\n', index - 1) + 1;
  const end = text.indexOf('\n', index);
  return text.slice(start, end < 0 ? undefined : end);
}

/** A string literal on one line, in any of the three quotes (a template without substitutions). */
const LITERAL = String.raw`(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|\x60(?:[^\x60\\$]|\\.|\$(?!\{))*\x60)`;

/**
 * What a chain of literals spells, `'sk_live_' + '51Nz…'` or `['ghp_', 'R8mK…'].join('')`, judged by the detectors
 * as if it were written as one literal in its place (the line before it kept, so a secret-named key still counts):
 * the kind of secret it is, or undefined. A secret split to slip past a search is still that secret.
 */
function joinedSecretKind(match: RegExpExecArray): string | undefined {
  const parts = [...match[0].matchAll(new RegExp(LITERAL, 'g'))].map((literal) => literal[0].slice(1, -1));
  const joined = parts.join('');
  if (parts.length < 2 || joined.length < 8 || /["\n]/.test(joined)) return undefined;
  const lineStart = match.input.lastIndexOf('\n', match.index - 1) + 1;
  const before = match.input.slice(lineStart, match.index);
  const probe = `${before}"${joined}"`;
  let kind: string | undefined;
  replaceSecrets(probe, (finding) => {
    if (kind === undefined && finding.end > before.length && finding.start < probe.length - 1) kind = finding.kind;
    return '';
  });
  return kind;
}

const DETECTORS: readonly Detector[] = [
  // Literals joined with `+` or by `[…].join('')`, redacted whole (chains of two or more; each step reads a literal once).
  {
    kind: joinedSecretKind,
    pattern: regex(String.raw`${LITERAL}(?:\s*\+\s*${LITERAL})+|\[\s*${LITERAL}(?:\s*,\s*${LITERAL})+\s*,?\s*\]\s*\.join\(\s*(?:''|""|\x60\x60)\s*\)`),
    needles: ['+', '.join('],
  },
  // PEM and PGP private keys, also inside JSON strings with escaped newlines; a block cut short ends where the base64 does.
  {
    kind: 'private-key',
    pattern: regex(String.raw`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=:\s-]|\\n)*)`),
  },
  // The body of a key without its header (a window of a file that starts inside one): three or more lines of base64
  // alone, random in their letters. Each line is read once: its characters cannot be split between two steps.
  {
    kind: 'private-key',
    pattern: regex(String.raw`^[ \t]*([A-Za-z0-9+/]{40,}={0,2}(?:[ \t]*\r?\n[ \t]*[A-Za-z0-9+/]{40,}={0,2}){2,})`, 'm'),
    group: 1,
    accept: (value) => randomBlock(value.replace(/\s+/g, '')),
  },
  // scheme://user:password@host keeps the user and the host.
  {
    kind: 'url-password',
    pattern: regex(String.raw`\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/?#@'"\x60]*:([^\s@/?#'"\x60]+)@`),
    group: 1,
    accept: (value) => !PLACEHOLDER.test(value) && !/^\d+$/.test(value),
    needles: ['://'],
  },
  ...PROVIDERS.map((p): Detector => ({ kind: p.kind, pattern: regex(p.pattern, p.flags), ...(p.accept ? { accept: p.accept } : {}), ...(p.needles ? { needles: p.needles } : {}) })),
  // Azure storage and service bus connection strings, SAS signatures.
  { kind: 'azure-key', pattern: regex(String.raw`\b(?:AccountKey|SharedAccessKey|SharedSecretValue)\s*=\s*([A-Za-z0-9+/]{20,}={0,2})`, 'i'), group: 1 },
  { kind: 'azure-sas', pattern: regex(String.raw`[?&]sig=([A-Za-z0-9%+/=]{20,})`), group: 1 },
  // Password=…; in an ADO.NET, JDBC or ODBC connection string (a line with other key=value; pairs).
  {
    kind: 'password',
    pattern: regex(String.raw`(?<=^|[;"'\x60\s{(,])(?:password|pwd)\s*=(?![=>])\s*([^;"'\x60\n\s=][^;"'\x60\n]*?)(?=\s*(?:;|["'\x60]|$))`, 'im'),
    group: 1,
    accept: (value, match, text) => {
      const line = lineAround(text, match.index);
      return !PLACEHOLDER.test(value) && /;/.test(line) && /(?<![\w\s])[\w\s]+=[^;=]*;/.test(line) && line.split('=').length >= 3;
    },
    needles: ['password', 'pwd'],
  },
  // Authorization header values.
  {
    kind: 'bearer-token',
    pattern: regex(String.raw`\b(?:[Bb]earer|[Tt]oken)\s+([A-Za-z0-9._~+/-]{16,}=*)`),
    group: 1,
    accept: (value) => /\d/.test(value) && /[A-Za-z]/.test(value) && !MEMBER_PATH.test(value),
  },
  // HTTP basic credentials: base64 of user:password.
  {
    kind: 'basic-auth',
    pattern: regex(String.raw`\bBasic\s+([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])`),
    group: 1,
    accept: (value) => /^[\x20-\x7e]+:[\x20-\x7e]+$/.test(Buffer.from(value, 'base64').toString('latin1')),
    needles: ['Basic'],
  },
  // An AWS secret access key next to its name, whatever the syntax around it.
  {
    kind: 'aws-secret-key',
    pattern: regex(String.raw`(?:aws_?secret_?(?:access_?)?key|secret_?access_?key)["'\x60]?\s*(?:[:=]|:=|=>)+\s*["'\x60]?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])`, 'i'),
    group: 1,
    needles: ['secret'],
  },
  // docker login -p …, sshpass -p …, redis-cli -a …, mysql -p…
  {
    kind: 'password',
    pattern: regex(String.raw`\b(?:(?:docker|podman|helm|nerdctl|sshpass)\b[^\n]*?\s-p\s+|redis-cli\b[^\n]*?\s-a\s+|(?:mysql|mysqldump|mariadb)\b[^\n]*?\s-p)["']?([^\s"'-][^\s"']{3,})`),
    group: 1,
    accept: (value) => !PLACEHOLDER.test(value),
  },
  // curl -u user:password, --password=…, --token …
  {
    kind: 'password',
    pattern: regex(String.raw`(?:^|\s)(?:-u|--user)\s+["']?[^\s:"']+:([^\s"']+)`),
    group: 1,
    accept: (value) => !PLACEHOLDER.test(value),
    needles: ['-u'],
  },
  {
    kind: (match) => secretKeyKind(match[1] as string)?.kind,
    pattern: regex(String.raw`(?:^|\s)--((?:[a-z]+-)*(?:password|passwd|token|secret|api-key|apikey|access-key|private-key|client-secret))(?:=|\s+)["']?([^\s"']+)`, 'i'),
    group: 2,
    accept: (value) => plausibleSecret(value, 'strong'),
    needles: ['--'],
  },
  // The key argument of calls that take one: jwt.sign(payload, 'key'), createHmac('sha256', 'key'), twilio(sid, 'token'), login('user', 'password').
  {
    kind: 'secret',
    pattern: regex(String.raw`\b(?:jwt\.(?:sign|verify)|create(?:Hmac|Cipheriv|Decipheriv)|[Tt]wilio|login|logIn|signIn|basicAuth|authenticate)\s*\(\s*(?:[^,()]|\([^()]*\))+?,\s*(["'\x60])([^"'\x60\n]{4,})\1`),
    group: 2,
    accept: (value) => !PLACEHOLDER.test(value) && !/\s/.test(value) && !/^(?:sha|md|aes|des|hex|base64|utf-?8|latin1|ascii|binary)[\w-]*$/i.test(value) && (/\d/.test(value) || value.length >= 12) && !isPathOrUrl(value),
  },
  // A quoted value assigned to (or compared with) a secret-named key, in code, JSON, TOML or YAML.
  {
    kind: (match) => secretKeyKind(match[1] as string)?.kind,
    pattern: regex(`${KEY}${ASSIGN}${QUOTED}`),
    group: 3,
    accept: (value, match) => {
      const key = secretKeyKind(match[1] as string);
      return key !== undefined && plausibleSecret(value, key.evidence);
    },
    needles: QUOTES,
  },
  // An unquoted value on a line of its own: .env, YAML, properties, INI (`DB_PASSWORD=hunter2`, `password: hunter2`).
  {
    kind: (match) => secretKeyKind(match[1] as string)?.kind,
    pattern: regex(String.raw`^[ \t]*(?:export[ \t]+|-[ \t]+|set[ \t]+|\/\/[^\s:]*:)?([A-Za-z_$][\w$.-]*)[ \t]*[=:][ \t]*([^\s"'\x60#]\S*)(?:[ \t]+#.*)?[ \t]*$`, 'm'),
    group: 2,
    accept: (value, match) => {
      const key = secretKeyKind(match[1] as string);
      if (!key || /[,;(){}]$/.test(value) || /[()]/.test(value) || MEMBER_PATH.test(value) || /^[|>]-?$/.test(value) || /^!\w+/.test(value)) return false;
      return plausibleSecret(value, key.evidence === 'weak' ? 'weak' : 'password');
    },
  },
  // A secret-named key and its value anywhere in a comment line, prose around it: `// staging db: user=qa password=…`.
  // The comment is checked behind the value, so the look back runs only where a key and a value were found.
  {
    kind: (match) => secretKeyKind(match[1] as string)?.kind,
    pattern: regex(String.raw`(?<![\w$.-])([A-Za-z_][\w.-]*)[ \t]*[=:][ \t]*([^\s"'\x60,;()<>\[\]{}]{4,})(?<=(?:\/\/|#|\/\*|^[ \t]*\*|^[ \t]*--)[^\n]*)`, 'm'),
    group: 2,
    accept: (value, match) => {
      const key = secretKeyKind(match[1] as string);
      const trimmed = value.replace(/[.!?]+$/, '');
      return key !== undefined && key.evidence !== 'key' && !MEMBER_PATH.test(trimmed) && plausibleSecret(trimmed, key.evidence === 'weak' ? 'weak' : 'password');
    },
    needles: ['//', '#', '*', '--'],
  },
  // Kubernetes and compose environment lists: `- name: DB_PASSWORD` then `value: …`.
  {
    kind: (match) => secretKeyKind(match[1] as string)?.kind,
    pattern: regex(String.raw`name:[ \t]*["']?([A-Za-z_][\w.-]*)["']?[ \t]*\r?\n[ \t]*value:[ \t]*["']?([^\s"'#]+)`),
    group: 2,
    accept: (value, match) => {
      const key = secretKeyKind(match[1] as string);
      return key !== undefined && plausibleSecret(value, key.evidence === 'weak' ? 'weak' : 'password');
    },
    needles: ['value:'],
  },
  // XML elements: <password>…</password>.
  {
    kind: (match) => secretKeyKind(match[1] as string)?.kind,
    pattern: regex(String.raw`<([A-Za-z_][\w.-]*)>([^<\n]{4,})</\1>`),
    group: 2,
    accept: (value, match) => {
      const key = secretKeyKind(match[1] as string);
      return key !== undefined && plausibleSecret(value, key.evidence);
    },
    needles: ['</'],
  },
  // Query parameters: ?api_key=…&token=…
  {
    kind: (match) => secretKeyKind(match[1] as string)?.kind,
    pattern: regex(String.raw`(?<=[?&;])([A-Za-z_][\w.-]*)=([^&#\s'"\x60<>]+)`),
    group: 2,
    accept: (value, match) => {
      const key = secretKeyKind(match[1] as string);
      return key !== undefined && plausibleSecret(decodeURIComponentSafe(value), key.evidence === 'weak' ? 'weak' : 'strong');
    },
  },
  // Random-looking literals, whatever they are assigned to: quoted in code, or unquoted in .env and YAML.
  { kind: 'high-entropy', pattern: regex(String.raw`(["'\x60])([A-Za-z0-9+/=_\-.~]{20,})\1`), group: 2, accept: (value) => looksRandom(value), needles: QUOTES },
  {
    kind: 'high-entropy',
    pattern: regex(String.raw`^[ \t]*(?:export[ \t]+|-[ \t]+)?[A-Za-z_][\w.-]*[ \t]*[=:][ \t]*([A-Za-z0-9+/=_\-.~]{20,})[ \t]*(?:#.*)?$`, 'm'),
    group: 1,
    accept: (value) => looksRandom(value),
  },
];

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Redaction

/** The first line of a PEM or PGP private key: a file holding one is not code anyone asks about. */
export const PRIVATE_KEY_HEADER = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/;

/** The marker that replaces a secret: readable, says what was there, carries nothing of it. */
export function secretMarker(kind: string, ordinal = 1): string {
  return ordinal > 1 ? `[redacted:${kind}#${ordinal}]` : `[redacted:${kind}]`;
}

/** Anything the redaction left: a marker. */
export const MARKER = /\[redacted:[a-z0-9-]+(?:#\d+)?\]/g;

/**
 * Texts the detectors found nothing in, most recently seen last, up to {@link CLEAN_CHARS} characters in all. The
 * detectors depend on the text alone, so such a text needs no second search: the same context, prompt and record
 * texts are redacted several times in one task (its context, the prompt that holds it, the trace record and its
 * update), and again by the next task in the same file.
 */
const cleanTexts = new Set<string>();
let cleanChars = 0;
const CLEAN_CHARS = 2_000_000;
/** Longer texts (whole files) are not kept: each would push out many snippets. */
const CLEAN_TEXT_MAX = 64_000;

function rememberClean(text: string): void {
  if (text.length > CLEAN_TEXT_MAX) return;
  cleanTexts.add(text);
  cleanChars += text.length;
  for (const oldest of cleanTexts) {
    if (cleanChars <= CLEAN_CHARS) break;
    cleanTexts.delete(oldest);
    cleanChars -= oldest.length;
  }
}

function holdsNeedle(text: string, needles: readonly string[]): boolean {
  for (const needle of needles) if (text.includes(needle)) return true;
  return false;
}

/**
 * Runs every detector over `text`, replacing each secret with what `mark` returns for it. Detectors run one after
 * the other on the text so far, so a value is replaced once, by the most specific detector.
 */
export function replaceSecrets(text: string, mark: (finding: SecretFinding) => string): string {
  if (cleanTexts.has(text)) {
    // Seen again: it becomes the most recent.
    cleanTexts.delete(text);
    cleanTexts.add(text);
    return text;
  }
  let out = text;
  let lower: string | undefined;
  for (const detector of DETECTORS) {
    const pattern = detector.pattern;
    if (detector.needles && !holdsNeedle(pattern.ignoreCase ? (lower ??= out.toLowerCase()) : out, detector.needles)) continue;
    pattern.lastIndex = 0;
    let result = '';
    let last = 0;
    let match: RegExpExecArray | null;
    while ((match = pattern.exec(out)) !== null) {
      if (match[0].length === 0) {
        pattern.lastIndex++;
        continue;
      }
      const group = detector.group ?? 0;
      const value = match[group];
      const span = match.indices?.[group];
      if (value === undefined || value.length === 0 || span === undefined) continue;
      const [start, end] = span;
      if (start < last) continue;
      const kind = typeof detector.kind === 'string' ? detector.kind : detector.kind(match);
      if (kind === undefined || (detector.accept && !detector.accept(value, match, out))) continue;
      result += out.slice(last, start) + mark({ kind, value, start, end });
      last = end;
    }
    if (last > 0) {
      out = result + out.slice(last);
      lower = undefined;
    }
  }
  if (out === text) rememberClean(text);
  return out;
}

/**
 * For tests: each detector that has needles, whether its pattern matches `text` (every pattern runs, whatever the
 * needles say) and whether it matches although none of its needles is in the text (the needles would hide a match).
 */
export function needleCheck(text: string): { kind: string; matched: boolean; missed: boolean }[] {
  return DETECTORS.flatMap((detector) => {
    if (!detector.needles) return [];
    const pattern = new RegExp(detector.pattern.source, detector.pattern.flags);
    const matched = pattern.test(text);
    const haystack = detector.pattern.ignoreCase ? text.toLowerCase() : text;
    return [{ kind: typeof detector.kind === 'string' ? detector.kind : pattern.source.slice(0, 40), matched, missed: matched && !holdsNeedle(haystack, detector.needles) }];
  });
}

/** The secrets in a text, in the order the detectors found them. */
export function findSecrets(text: string): SecretFinding[] {
  const found: SecretFinding[] = [];
  replaceSecrets(text, (finding) => {
    found.push(finding);
    return secretMarker(finding.kind);
  });
  return found;
}

/**
 * Redacts credentials from text about to be shown, sent or stored: every detector, then every other occurrence of
 * the values they found and of the values this process has redacted before (so a secret stays redacted where it
 * appears without the context that gave it away).
 */
export function redactSecrets(text: string): string {
  const found = new Map<string, string>();
  const detected = replaceSecrets(text, (finding) => {
    found.set(finding.value, finding.kind);
    rememberSecret(finding.value, finding.kind);
    return secretMarker(finding.kind);
  });
  return replaceValues(replaceValues(detected, found), remembered, rememberedPattern());
}

/** Values longer than this (whole private keys) are replaced one by one rather than through one pattern. */
const MAX_PATTERN_VALUE = 256;

/** Replaces every occurrence of the given values (never inside a marker) with a marker of their kind. */
function replaceValues(text: string, values: ReadonlyMap<string, string>, pattern = valuePattern(values.keys()), mark = (value: string, kind: string): string => secretMarker(kind)): string {
  let out = text;
  for (const [value, kind] of values) if (value.length > MAX_PATTERN_VALUE && out.includes(value)) out = out.split(value).join(mark(value, kind));
  if (!pattern) return out;
  return out.replace(pattern, (match) => (match.startsWith('[redacted:') && !values.has(match) ? match : mark(match, values.get(match) ?? 'secret')));
}

// ---------------------------------------------------------------------------------------------------------------
// Values redacted before, remembered for the life of the process

// Process-wide on purpose: a secret seen in one workspace is hidden in every other too (more redaction is the safe side).
const REMEMBERED_LIMIT = 2_000;
const remembered = new Map<string, string>();
let rememberedRegex: RegExp | undefined | null = null;

/**
 * Whether a value is distinctive enough to be replaced wherever it appears: a plain word ("postgres", "changeme")
 * is not, since it also names things that are not secret.
 */
function distinctive(value: string): boolean {
  return value.length >= 8 && value.length <= MAX_PATTERN_VALUE && !/^[A-Za-z]+$/.test(value) && !/^\d+$/.test(value) && !value.includes('[redacted:');
}

/** Remembers a secret value, so later text that repeats it without its context is redacted too. */
export function rememberSecret(value: string, kind: string): void {
  if (!distinctive(value)) return;
  if (remembered.has(value)) {
    remembered.delete(value);
    remembered.set(value, kind);
    return;
  }
  remembered.set(value, kind);
  while (remembered.size > REMEMBERED_LIMIT) remembered.delete(remembered.keys().next().value as string);
  rememberedRegex = null;
}

/** Forgets every remembered value (for measurements that must judge each text on its own). */
export function forgetRememberedSecrets(): void {
  remembered.clear();
  rememberedRegex = null;
  kept.clear();
  keptRegex = null;
}

// ---------------------------------------------------------------------------------------------------------------
// Values kept back from a model in this process, for the trace

/**
 * Every value a redaction for a model replaced (shorter ones too, which `remembered` leaves out as too common to
 * replace in prompts): the trace replaces them wherever they appear, so an answer that quotes a placeholder, restored
 * for the user, is stored with the placeholder again. Too much replaced there costs nothing: the trace's own
 * redaction is reversible for the session that needs the values back.
 */
const KEPT_LIMIT = 5_000;
const KEPT_MIN_LENGTH = 6;
const kept = new Map<string, string>();
let keptRegex: RegExp | undefined | null = null;

function rememberKept(value: string, kind: string): void {
  if (value.length < KEPT_MIN_LENGTH || value.includes('[redacted:')) return;
  if (kept.has(value)) {
    kept.delete(value);
    kept.set(value, kind);
    return;
  }
  kept.set(value, kind);
  while (kept.size > KEPT_LIMIT) kept.delete(kept.keys().next().value as string);
  keptRegex = null;
}

function keptPattern(): RegExp | undefined {
  if (keptRegex === null) keptRegex = valuePattern(kept.keys());
  return keptRegex;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Patterns of recent value sets: every request redacts with the same few (the workspace's .env, secrets seen before). */
const patternCache = new Map<string, RegExp>();
const PATTERN_CACHE_SIZE = 16;

/**
 * Markers first (so they are stepped over whole), then the values, longest first, so a value containing another is
 * replaced whole. One global pattern per value set, shared, so only for `String.replace`, which resets it.
 */
function valuePattern(values: Iterable<string>): RegExp | undefined {
  const sorted = [...values].filter((value) => value.length >= 4 && value.length <= MAX_PATTERN_VALUE).sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0));
  if (sorted.length === 0) return undefined;
  const key = sorted.join('\u0000');
  const cached = patternCache.get(key);
  if (cached) {
    patternCache.delete(key);
    patternCache.set(key, cached);
    return cached;
  }
  const pattern = new RegExp(`${MARKER.source}|${sorted.map(escapeRegex).join('|')}`, 'g');
  patternCache.set(key, pattern);
  if (patternCache.size > PATTERN_CACHE_SIZE) patternCache.delete(patternCache.keys().next().value as string);
  return pattern;
}

function rememberedPattern(): RegExp | undefined {
  if (rememberedRegex === null) rememberedRegex = valuePattern(remembered.keys());
  return rememberedRegex;
}

/**
 * Reversible redaction for one exchange with a model: each distinct secret gets its own marker (`[redacted:kind]`,
 * then `[redacted:kind#2]` …); every other occurrence of a value found, of the known values (the workspace's .env,
 * literals of ignored files) and of secrets redacted before is replaced too; `restore` puts the originals back into
 * the answer, so code the model echoes keeps the user's values instead of markers.
 */
export class Redactor {
  private readonly byValue = new Map<string, string>();
  private readonly byMarker = new Map<string, string>();
  private readonly perKind = new Map<string, number>();
  private readonly known: ReadonlyMap<string, string>;
  private readonly knownPattern: RegExp | undefined;

  /**
   * `known`: values to redact wherever they appear, each with its kind. `keptValues`: also every value a redaction
   * for a model replaced so far in this process, as the trace wants (see `kept`).
   */
  constructor(
    known: ReadonlyMap<string, string> = new Map(),
    private readonly options: { keptValues?: boolean } = {},
  ) {
    const merged = new Map(remembered);
    for (const [value, kind] of known) merged.set(value, kind);
    this.known = merged;
    this.knownPattern = valuePattern(merged.keys());
  }

  /** How many distinct secrets were redacted so far. */
  get count(): number {
    return this.byValue.size;
  }

  private markerFor(value: string, kind: string): string {
    const existing = this.byValue.get(value);
    if (existing) return existing;
    const ordinal = (this.perKind.get(kind) ?? 0) + 1;
    this.perKind.set(kind, ordinal);
    const marker = secretMarker(kind, ordinal);
    this.byValue.set(value, marker);
    this.byMarker.set(marker, value);
    rememberSecret(value, kind);
    rememberKept(value, kind);
    return marker;
  }

  /**
   * The detectors first, over the whole text as it is, then the known values, then every other occurrence of what
   * the detectors found. Known values go last because they include pieces of secrets seen before: a private key's
   * first lines, redacted from a short snippet, would otherwise take the key's header away from the detector that
   * reads the whole key further down the same prompt, and its body would go out raw.
   */
  redact(text: string): string {
    const mark = (value: string, kind: string): string => this.markerFor(value, kind);
    // A known value a detector finds is still named by where it comes from (the .env, an ignored file).
    const detected = replaceSecrets(text, (finding) => this.markerFor(finding.value, this.known.get(finding.value) ?? finding.kind));
    let known = replaceValues(detected, this.known, this.knownPattern, mark);
    if (this.options.keptValues) known = replaceValues(known, kept, keptPattern(), mark);
    const found = new Map<string, string>();
    for (const [value, marker] of this.byValue) if (!this.known.has(value)) found.set(value, marker.slice('[redacted:'.length, marker.search(/[#\]]/)));
    return replaceValues(known, found, valuePattern(found.keys()), mark);
  }

  /** The text with this redactor's markers replaced by the values they stand for. */
  restore(text: string): string {
    if (this.byMarker.size === 0) return text;
    return text.replace(MARKER, (marker) => this.byMarker.get(marker) ?? marker);
  }
}
