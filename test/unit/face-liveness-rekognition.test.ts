/**
 * Rekognition Face Liveness on AWS (functions/adapters/face-liveness.ts), with aws-sdk-client-mock:
 * the session created, the browser's credentials narrowed to the streaming call, and the result
 * read the way AWS answers it: scored, not done yet, failed, expired, gone, half an answer, a
 * throttle.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { CreateFaceLivenessSessionCommand, GetFaceLivenessSessionResultsCommand, RekognitionClient } from '@aws-sdk/client-rekognition';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { BROWSER_CREDENTIALS_SECONDS, RekognitionFaceLiveness } from '../../functions/adapters/face-liveness.js';
import { isTransientError } from '../../functions/shared/aws-errors.js';

const rekognition = mockClient(RekognitionClient);
const sts = mockClient(STSClient);
const ROLE = 'arn:aws:iam::111122223333:role/arthr-fir-liveness-browser';
const SESSION = '0f3c3b2e-6a61-4d5e-9b1a-2c7d9e8f1a2b';
const named = (name: string, extra: object = {}) => Object.assign(new Error(name), { name, ...extra });
const jpeg = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);

beforeEach(() => {
  rekognition.reset();
  sts.reset();
});

describe('RekognitionFaceLiveness', () => {
  it('creates a session with the step\'s challenge and audit images, idempotent by its client token, keeping no images in S3', async () => {
    rekognition.on(CreateFaceLivenessSessionCommand).resolves({ SessionId: SESSION });
    const out = await new RekognitionFaceLiveness(ROLE).createSession({ clientToken: 'tok-1', challenge: 'FaceMovementChallenge', auditImages: 2 });
    expect(out).toEqual({ sessionId: SESSION });
    const input = rekognition.commandCalls(CreateFaceLivenessSessionCommand)[0]!.args[0].input;
    expect(input).toEqual({ ClientRequestToken: 'tok-1', Settings: { AuditImagesLimit: 2, ChallengePreferences: [{ Type: 'FaceMovementChallenge' }] } });
    rekognition.on(CreateFaceLivenessSessionCommand).resolves({});
    await expect(new RekognitionFaceLiveness(ROLE).createSession({ clientToken: 'tok-2', challenge: 'FaceMovementAndLightChallenge', auditImages: 0 })).rejects.toThrow(/without an id/);
  });

  it('gives the browser 15 minutes of credentials for the streaming call only', async () => {
    sts.on(AssumeRoleCommand).resolves({
      Credentials: { AccessKeyId: 'ASIAEXAMPLE', SecretAccessKey: 'secret', SessionToken: 'token', Expiration: new Date('2026-11-29T10:15:00Z') },
    });
    const creds = await new RekognitionFaceLiveness(ROLE).browserCredentials(SESSION);
    expect(creds).toEqual({ accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token', expiration: '2026-11-29T10:15:00.000Z' });
    const input = sts.commandCalls(AssumeRoleCommand)[0]!.args[0].input;
    expect(input.RoleArn).toBe(ROLE);
    expect(input.DurationSeconds).toBe(BROWSER_CREDENTIALS_SECONDS);
    expect(BROWSER_CREDENTIALS_SECONDS).toBe(900);
    expect(input.RoleSessionName).toMatch(/^[\w+=,.@-]{2,64}$/);
    expect(JSON.parse(input.Policy!)).toEqual({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 'rekognition:StartFaceLivenessSession', Resource: '*' }] });
  });

  it('refuses to hand out credentials without the browser role, or when STS answers none; passes a throttle on as transient', async () => {
    await expect(new RekognitionFaceLiveness(undefined).browserCredentials(SESSION)).rejects.toThrow(/LIVENESS_BROWSER_ROLE_ARN/);
    expect(sts.calls()).toHaveLength(0);
    sts
      .on(AssumeRoleCommand)
      .resolvesOnce({ Credentials: { AccessKeyId: 'A', SecretAccessKey: 'S', SessionToken: undefined as unknown as string, Expiration: new Date() } })
      .rejectsOnce(named('Throttling', { $retryable: { throttling: true } }));
    await expect(new RekognitionFaceLiveness(ROLE).browserCredentials(SESSION)).rejects.toThrow(/without credentials/);
    const err = await new RekognitionFaceLiveness(ROLE).browserCredentials(SESSION).catch((e: unknown) => e);
    expect(isTransientError(err)).toBe(true);
  });

  it('reads a scored session: its confidence from 0 to 1, the reference image and the audit images', async () => {
    rekognition.on(GetFaceLivenessSessionResultsCommand).resolves({
      SessionId: SESSION,
      Status: 'SUCCEEDED',
      Confidence: 97.3456,
      ReferenceImage: { Bytes: jpeg },
      AuditImages: [{ Bytes: jpeg }, { S3Object: { Bucket: 'b', Name: 'n' } }, { Bytes: jpeg }],
      Challenge: { Type: 'FaceMovementAndLightChallenge', Version: '2.0.0' },
    });
    const out = await new RekognitionFaceLiveness(ROLE).sessionResult(SESSION);
    expect(out).toEqual({ outcome: 'scored', confidence: 0.9735, reference: jpeg, audit: [jpeg, jpeg], challenge: 'FaceMovementAndLightChallenge' });
    expect(rekognition.commandCalls(GetFaceLivenessSessionResultsCommand)[0]!.args[0].input).toEqual({ SessionId: SESSION });
  });

  it.each([
    [{ Status: 'CREATED' }, { outcome: 'pending', status: 'CREATED' }],
    [{ Status: 'IN_PROGRESS' }, { outcome: 'pending', status: 'IN_PROGRESS' }],
    [{ Status: 'FAILED' }, { outcome: 'unusable', reason: 'failed' }],
    [{ Status: 'EXPIRED' }, { outcome: 'unusable', reason: 'expired' }],
    // Half an answer is no answer: a score without its picture, a picture without its score.
    [{ Status: 'SUCCEEDED', Confidence: 99 }, { outcome: 'unusable', reason: 'noReference' }],
    [{ Status: 'SUCCEEDED', Confidence: 99, ReferenceImage: { Bytes: new Uint8Array(0) } }, { outcome: 'unusable', reason: 'noReference' }],
    [{ Status: 'SUCCEEDED', ReferenceImage: { Bytes: jpeg } }, { outcome: 'unusable', reason: 'noReference' }],
  ] as const)('answers %j as %j', async (answer, outcome) => {
    rekognition.on(GetFaceLivenessSessionResultsCommand).resolves({ SessionId: SESSION, ...answer });
    expect(await new RekognitionFaceLiveness(ROLE).sessionResult(SESSION)).toEqual(outcome);
  });

  it('answers a session Rekognition does not know (never issued, or its 3 minutes over) as gone', async () => {
    rekognition.on(GetFaceLivenessSessionResultsCommand).rejects(named('SessionNotFoundException'));
    expect(await new RekognitionFaceLiveness(ROLE).sessionResult(SESSION)).toEqual({ outcome: 'unusable', reason: 'notFound' });
  });

  it('passes a throttle on as transient, and a refused grant or an unknown status as a fault of its own', async () => {
    rekognition
      .on(GetFaceLivenessSessionResultsCommand)
      .rejectsOnce(named('ThrottlingException', { $retryable: { throttling: true } }))
      .rejectsOnce(named('AccessDeniedException', { $metadata: { httpStatusCode: 400 } }))
      .resolvesOnce({ SessionId: SESSION, Status: 'SOMETHING_NEW' as never });
    const throttled = await new RekognitionFaceLiveness(ROLE).sessionResult(SESSION).catch((e: unknown) => e);
    expect(isTransientError(throttled)).toBe(true);
    const denied = await new RekognitionFaceLiveness(ROLE).sessionResult(SESSION).catch((e: unknown) => e);
    expect(denied).toMatchObject({ name: 'AccessDeniedException' });
    expect(isTransientError(denied)).toBe(false);
    await expect(new RekognitionFaceLiveness(ROLE).sessionResult(SESSION)).rejects.toThrow(/status SOMETHING_NEW/);
  });
});
