// `assistant/agents`: the registered agents and the tasks each serves.
import { MessageDirection, RequestType } from 'vscode-languageserver-protocol';
import type { AgentInfo } from './traceTypes.js';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the request takes no parameters yet
export interface AgentsParams {}

export interface AgentsResult {
  agents: AgentInfo[];
  /** Settings problems that disabled an agent, in readable form. */
  problems: string[];
}

/**
 * Lists the agents the registry holds now (offline agents plus model agents from settings and environment).
 * Sent from the client to the server.
 */
export namespace AgentsRequest {
  export const method = 'assistant/agents' as const;
  export const messageDirection = MessageDirection.clientToServer;
  export const type = new RequestType<AgentsParams, AgentsResult, void>(method);
}
