// A model agent on any OpenAI-compatible endpoint, through the openai package.
import type { ModelAgentSettings, TaskId } from '../protocol.js';
import { ModelAgent } from './modelAgent.js';
import { ModelClient } from './modelClient.js';
import type { ModelEndpoint } from './modelClient.js';

export interface OpenAIAgentConfig {
  name: string;
  endpoint: ModelEndpoint;
  tasks?: TaskId[];
  prompts?: ModelAgentSettings['prompts'];
  toolProtocol?: ModelAgentSettings['toolProtocol'];
  embeddingModel?: string;
}

export class OpenAIAgent extends ModelAgent {
  constructor(config: OpenAIAgentConfig) {
    const { endpoint, ...rest } = config;
    const host = endpoint.baseURL ? new URL(endpoint.baseURL).host : 'api.openai.com';
    super({ ...rest, client: new ModelClient(endpoint), model: endpoint.model, where: host, description: `Asks ${endpoint.model} at ${host}.` });
  }
}
