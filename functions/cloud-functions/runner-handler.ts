/**
 * The runner Lambda: runs one tenant cloud function per invocation. It is a Lambda of its own so
 * that tenant code never shares a process with the service: its role grants nothing, it holds no
 * configuration, and it imports only the sandbox (no AWS SDK, no service module).
 */
import type { PythonCheck, RunnerPayload, RunResult } from './contract.js';
import { dispatch } from './runner-dispatch.js';
import { warmUp } from './sandbox.js';

// Compiled during the init phase rather than in the first invocation.
await warmUp();

/**
 * `allowedOrigins` is dropped: it exists for the local runtime's stand-ins on loopback, and on AWS
 * nothing the guard refuses is meant to be reached, so a request naming one (a bug or a forged
 * payload) cannot open the VPC or the metadata endpoint to tenant code. `refusedEndpoints` stays:
 * it can only refuse more.
 */
export const handler = async (event: RunnerPayload): Promise<RunResult | PythonCheck> => dispatch('action' in event ? event : { ...event, allowedOrigins: [] });
