/**
 * Amazon Rekognition Face Liveness, in the function's own region: the service creates a session
 * (CreateFaceLivenessSession), the browser streams the user's video to it with credentials that
 * allow nothing but StartFaceLivenessSession (an STS session of the stack's browser role, its
 * session policy narrowing it to that one action, for STS's shortest 15 minutes), and the
 * service reads the result (GetFaceLivenessSessionResults) once the browser says it is done. A
 * session lives 3 minutes; its result and images go with it.
 *
 * None of the three actions takes a resource: the grants are on `*`. What keeps one end user's
 * credentials from another's session is that a session's id is random and known only to the
 * step that created it (kept in its instance's partition) and to that end user's page.
 *
 * Throttles and Rekognition's own faults are passed on (the route answers 503 with Retry-After,
 * the step stays waiting); what the session says is answered as its outcome.
 */
import type { RekognitionClient } from '@aws-sdk/client-rekognition';
import type { STSClient } from '@aws-sdk/client-sts';
import { traced } from '../observability/tracer.js';
import type { BrowserCredentials, FaceLivenessResult, FaceLivenessService } from '../faces/model.js';
import { getStoreConfig } from '../config.js';

/** STS's shortest session: the browser needs it for one stream of a few seconds. */
export const BROWSER_CREDENTIALS_SECONDS = 900;

/** The browser's session policy: the role's own grant, narrowed again to the one streaming call. */
export const BROWSER_SESSION_POLICY = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action: 'rekognition:StartFaceLivenessSession', Resource: '*' }],
});

export class RekognitionFaceLiveness implements FaceLivenessService {
  private rekognition: Promise<{ client: RekognitionClient; commands: typeof import('@aws-sdk/client-rekognition') }> | undefined;
  private sts: Promise<{ client: STSClient; commands: typeof import('@aws-sdk/client-sts') }> | undefined;

  /** `browserRoleArn`: the role the browser's credentials are a session of (LIVENESS_BROWSER_ROLE_ARN). */
  constructor(private readonly browserRoleArn: string | undefined) {}

  private rekognitionClient() {
    this.rekognition ??= import('@aws-sdk/client-rekognition').then(async (commands) => ({ client: await traced(new commands.RekognitionClient({})), commands }));
    return this.rekognition;
  }

  private stsClient() {
    this.sts ??= import('@aws-sdk/client-sts').then(async (commands) => ({ client: await traced(new commands.STSClient({})), commands }));
    return this.sts;
  }

  async createSession(input: Parameters<FaceLivenessService['createSession']>[0]): Promise<{ sessionId: string }> {
    const { client, commands } = await this.rekognitionClient();
    const out = await client.send(
      new commands.CreateFaceLivenessSessionCommand({
        ClientRequestToken: input.clientToken,
        // No OutputConfig: the images come back in the result's bytes, and the step keeps them with the instance.
        Settings: { AuditImagesLimit: input.auditImages, ChallengePreferences: [{ Type: input.challenge }] },
      }),
    );
    if (!out.SessionId) throw new Error('Rekognition created a Face Liveness session without an id');
    return { sessionId: out.SessionId };
  }

  async browserCredentials(sessionId: string): Promise<BrowserCredentials> {
    if (!this.browserRoleArn) throw new Error('LIVENESS_BROWSER_ROLE_ARN is not configured for this function');
    const { client, commands } = await this.stsClient();
    const out = await client.send(
      new commands.AssumeRoleCommand({
        RoleArn: this.browserRoleArn,
        // A session name is at most 64 characters of [\w+=,.@-]: the session id's first 32.
        RoleSessionName: `liveness-${sessionId.replace(/[^\w+=,.@-]/g, '').slice(0, 32)}`,
        DurationSeconds: BROWSER_CREDENTIALS_SECONDS,
        Policy: BROWSER_SESSION_POLICY,
      }),
    );
    const c = out.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey || !c.SessionToken || !c.Expiration) throw new Error('STS answered AssumeRole without credentials');
    return { accessKeyId: c.AccessKeyId, secretAccessKey: c.SecretAccessKey, sessionToken: c.SessionToken, expiration: new Date(c.Expiration).toISOString() };
  }

  async sessionResult(sessionId: string): Promise<FaceLivenessResult> {
    const { client, commands } = await this.rekognitionClient();
    let out;
    try {
      out = await client.send(new commands.GetFaceLivenessSessionResultsCommand({ SessionId: sessionId }));
    } catch (err) {
      // An id Rekognition never issued, or one whose 3 minutes are over and whose result is gone.
      if ((err as { name?: unknown } | undefined)?.name === 'SessionNotFoundException') return { outcome: 'unusable', reason: 'notFound' };
      throw err;
    }
    switch (out.Status) {
      case 'CREATED':
      case 'IN_PROGRESS':
        return { outcome: 'pending', status: out.Status };
      case 'FAILED':
        return { outcome: 'unusable', reason: 'failed' };
      case 'EXPIRED':
        return { outcome: 'unusable', reason: 'expired' };
      case 'SUCCEEDED': {
        const reference = out.ReferenceImage?.Bytes;
        // A result without its score or its picture is no result: nothing is judged on half of one.
        if (typeof out.Confidence !== 'number' || !reference?.byteLength) return { outcome: 'unusable', reason: 'noReference' };
        return {
          outcome: 'scored',
          confidence: Math.round(Math.min(100, Math.max(0, out.Confidence)) * 100) / 10_000,
          reference,
          audit: (out.AuditImages ?? []).flatMap((a) => (a.Bytes?.byteLength ? [a.Bytes] : [])),
          ...(out.Challenge?.Type ? { challenge: out.Challenge.Type } : {}),
        };
      }
      default:
        throw new Error(`Rekognition answered a Face Liveness session with status ${String(out.Status)}`);
    }
  }
}

let service: RekognitionFaceLiveness | undefined;

/** Rekognition Face Liveness where the deployment has it (FACE_LIVENESS, set by the stack in its regions); undefined locally and elsewhere. */
export function faceLivenessService(): FaceLivenessService | undefined {
  const config = getStoreConfig();
  if (config.FACE_LIVENESS !== 'rekognition') return undefined;
  service ??= new RekognitionFaceLiveness(config.LIVENESS_BROWSER_ROLE_ARN);
  return service;
}
