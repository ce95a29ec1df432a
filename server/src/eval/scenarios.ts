// The scenarios the harness runs, by the name the command line gives them.
import type { Scenario, ScenarioId } from './scenario.js';
import { classScenario } from './classScenario.js';
import { docScenario, docTypesScenario } from './docScenario.js';
import { fixScenario } from './fixScenario.js';
import { generateScenario } from './generateScenario.js';
import { repairScenario } from './repairScenario.js';
import { testScenario } from './testScenario.js';
import { workspaceScenario } from './workspaceScenario.js';

/** Every scenario, by name. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each scenario has its own case type; the harness only passes cases back to the scenario that built them.
export const SCENARIOS: Record<ScenarioId, Scenario<any>> = {
  doc: docScenario,
  'doc-types': docTypesScenario,
  fix: fixScenario,
  repair: repairScenario,
  generate: generateScenario,
  test: testScenario,
  workspace: workspaceScenario,
  class: classScenario,
};
