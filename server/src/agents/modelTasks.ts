// The tasks model agents serve, one strategy per task, each in its own file under model/.
import type { TaskId } from '../protocol.js';
import type { ModelTaskStrategy } from './modelTask.js';
import { documentModel } from './model/documentModel.js';
import { explainModel } from './model/explainModel.js';
import { renameModel } from './model/renameModel.js';
import { fixModel } from './model/fixModel.js';
import { testModel } from './model/testModel.js';
import { implementModel } from './model/implementModel.js';
import { questionModel } from './model/questionModel.js';
import { generateModel } from './model/generateModel.js';
import { optimizeModel } from './model/optimizeModel.js';
import { issueModel } from './model/issueModel.js';
import { classModel } from './model/classModel.js';

const STRATEGIES: Partial<Record<TaskId, ModelTaskStrategy | undefined>> = {
  document: documentModel,
  explain: explainModel,
  rename: renameModel,
  fix: fixModel,
  test: testModel,
  implement: implementModel,
  question: questionModel,
  generate: generateModel,
  optimize: optimizeModel,
  issue: issueModel,
  class: classModel,
};

export function modelStrategy(task: TaskId): ModelTaskStrategy | undefined {
  return STRATEGIES[task];
}

/** Tasks with a model strategy today. */
export function modelTasks(): TaskId[] {
  return (Object.keys(STRATEGIES) as TaskId[]).filter((task) => STRATEGIES[task] !== undefined);
}
