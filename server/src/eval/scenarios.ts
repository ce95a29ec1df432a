// The scenarios the harness knows: the available ones, and what each planned one will measure.
import type { Scenario, ScenarioId } from './scenario.js';
import { docScenario } from './docScenario.js';
import { fixScenario } from './fixScenario.js';
import { generateScenario } from './generateScenario.js';
import { workspaceScenario } from './workspaceScenario.js';

/** Scenarios that can run today. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each scenario has its own case type; the harness only passes cases back to the scenario that built them.
export const AVAILABLE_SCENARIOS: Partial<Record<ScenarioId, Scenario<any>>> = {
  doc: docScenario,
  fix: fixScenario,
  generate: generateScenario,
  workspace: workspaceScenario,
};

/** What the scenarios not available yet will measure, for the "not available yet" message. */
export const PLANNED_SCENARIOS: Partial<Record<ScenarioId, string>> = {
  test: 'tests for a method, run against it (syntax correctness, generated-test pass rate)',
  class: 'RepoClassBench: a class from a description inside the repository (Pass@1, test rate, compile rate)',
};
