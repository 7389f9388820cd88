import { createPublicKey } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type WebAuthnCredential,
} from '@simplewebauthn/server';
import { convertAAGUIDToString, cose, decodeCredentialPublicKey, isoBase64URL } from '@simplewebauthn/server/helpers';
import { describe, expect, it } from 'vitest';
import { SoftAuthenticator, type SoftCredential } from '../support/soft-authenticator.js';

const origin = 'http://localhost:1234';
const rpID = 'localhost';
const aaguid = '08987058-cadc-4b81-b6e1-30de50dcbe96';

async function registrationOptions(
  extra: Partial<Parameters<typeof generateRegistrationOptions>[0]> = {},
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  return generateRegistrationOptions({
    rpName: 'Test RP',
    rpID,
    userName: 'alice@example.com',
    userID: new TextEncoder().encode('user-alice'),
    ...extra,
  });
}

/** Register a credential and return what a server would store. */
async function register(authenticator: SoftAuthenticator, extra = {}) {
  const options = await registrationOptions(extra);
  const response = authenticator.createCredential(options, origin);
  const result = await verifyRegistrationResponse({
    response,
    expectedChallenge: options.challenge,
    expectedOrigin: origin,
    expectedRPID: rpID,
  });
  if (!result.verified) throw new Error('registration not verified');
  return { options, response, info: result.registrationInfo, credential: result.registrationInfo.credential };
}

async function authenticate(
  authenticator: SoftAuthenticator,
  credential: WebAuthnCredential,
  tweaks: Parameters<SoftAuthenticator['getAssertion']>[2] = {},
  allowCredentials: { id: string }[] = [{ id: credential.id }],
) {
  const options = await generateAuthenticationOptions({ rpID, allowCredentials });
  const response = authenticator.getAssertion(options, origin, tweaks);
  return {
    response,
    verify: () =>
      verifyAuthenticationResponse({
        response,
        expectedChallenge: options.challenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
        credential,
      }),
  };
}

describe('SoftAuthenticator registration', () => {
  it('produces a response @simplewebauthn/server verifies, with its aaguid, id and public key', async () => {
    const authenticator = new SoftAuthenticator({ aaguid });
    const { options, response, info } = await register(authenticator);

    expect(response.id).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 bytes, unpadded
    expect(response.rawId).toBe(response.id);
    expect(response.type).toBe('public-key');
    expect(response.authenticatorAttachment).toBe('platform');
    expect(response.response.transports).toEqual(['internal']);
    expect(response.response.publicKeyAlgorithm).toBe(-7);
    expect(response.clientExtensionResults).toEqual({ credProps: { rk: true } });
    for (const field of ['clientDataJSON', 'attestationObject', 'publicKey', 'authenticatorData'] as const) {
      expect(response.response[field]).toMatch(/^[A-Za-z0-9_-]+$/);
    }
    expect(JSON.parse(isoBase64URL.toUTF8String(response.response.clientDataJSON))).toEqual({
      type: 'webauthn.create',
      challenge: options.challenge,
      origin,
      crossOrigin: false,
    });

    expect(info.fmt).toBe('none');
    expect(info.aaguid).toBe(aaguid);
    expect(info.credential.id).toBe(response.id);
    expect(info.credential.counter).toBe(0);
    expect(info.credential.transports).toEqual(['internal']);
    expect(info.userVerified).toBe(true);
    expect(info.credentialDeviceType).toBe('singleDevice');
    expect(info.rpID).toBe(rpID);
    expect(authenticator.credentials()).toEqual([response.id]);

    // The COSE key the server stored is the stored private key's public half, and matches `publicKey`.
    const exported = authenticator.exportCredential(response.id);
    const coseKey = decodeCredentialPublicKey(info.credential.publicKey);
    if (!cose.isCOSEPublicKeyEC2(coseKey)) throw new Error('expected an EC2 COSE key');
    expect(coseKey.get(cose.COSEKEYS.kty)).toBe(cose.COSEKTY.EC2);
    expect(coseKey.get(cose.COSEKEYS.alg)).toBe(cose.COSEALG.ES256);
    expect(coseKey.get(cose.COSEKEYS.crv)).toBe(cose.COSECRV.P256);
    expect(Buffer.from(coseKey.get(cose.COSEKEYS.x) ?? []).toString('base64url')).toBe(exported.privateKey.x);
    expect(Buffer.from(coseKey.get(cose.COSEKEYS.y) ?? []).toString('base64url')).toBe(exported.privateKey.y);
    const spki = createPublicKey({ key: exported.privateKey, format: 'jwk' }).export({ type: 'spki', format: 'der' });
    expect(response.response.publicKey).toBe(spki.toString('base64url'));
    expect(exported).toMatchObject({
      id: response.id,
      rpId: rpID,
      userHandle: options.user.id,
      signCount: 0,
      discoverable: true,
    });
  });

  it('defaults to the all-zero aaguid and can omit UV', async () => {
    const authenticator = new SoftAuthenticator({ userVerification: false });
    const options = await registrationOptions();
    const response = authenticator.createCredential(options, origin);
    // @simplewebauthn/server requires UV by default, even though its options default to 'preferred'.
    await expect(
      verifyRegistrationResponse({ response, expectedChallenge: options.challenge, expectedOrigin: origin, expectedRPID: rpID }),
    ).rejects.toThrow('User verification was required');
    const result = await verifyRegistrationResponse({
      response,
      expectedChallenge: options.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: false,
    });
    expect(result.registrationInfo?.aaguid).toBe('00000000-0000-0000-0000-000000000000');
    expect(result.registrationInfo?.userVerified).toBe(false);
  });

  it('tweaks make the server reject origin, challenge, type and RP ID', async () => {
    const authenticator = new SoftAuthenticator();
    const cases = [
      [{ origin: 'http://evil.example:1234' }, 'Unexpected registration response origin'],
      [{ challenge: isoBase64URL.fromUTF8String('other challenge') }, 'Unexpected registration response challenge'],
      [{ type: 'webauthn.get' }, 'Unexpected registration response type'],
      [{ rpId: 'example.com' }, 'Unexpected RP ID hash'],
      [{ userPresence: false }, 'User presence was required'],
    ] as const;
    for (const [tweaks, message] of cases) {
      const options = await registrationOptions();
      const response = authenticator.createCredential(options, origin, tweaks);
      await expect(
        verifyRegistrationResponse({ response, expectedChallenge: options.challenge, expectedOrigin: origin, expectedRPID: rpID }),
      ).rejects.toThrow(message);
    }
  });

  it('can force a credential id (e.g. to register the same id twice)', async () => {
    const first = new SoftAuthenticator();
    const { credential } = await register(first);
    const second = new SoftAuthenticator();
    const options = await registrationOptions({ userName: 'bob', userID: new TextEncoder().encode('user-bob') });
    const response = second.createCredential(options, origin, { credentialId: credential.id });
    expect(response.id).toBe(credential.id);
    const result = await verifyRegistrationResponse({
      response,
      expectedChallenge: options.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
    });
    expect(result.registrationInfo?.credential.id).toBe(credential.id);
    // Same id, different key: uniqueness is the server's job.
    expect(result.registrationInfo?.credential.publicKey).not.toEqual(credential.publicKey);
    expect(() => second.createCredential(options, origin, { credentialId: 'not base64url!' })).toThrow(/base64url/);
  });

  it('honours excludeCredentials like a browser (InvalidStateError)', async () => {
    const authenticator = new SoftAuthenticator();
    const { credential } = await register(authenticator);
    const options = await registrationOptions({ excludeCredentials: [{ id: credential.id }] });
    expect(() => authenticator.createCredential(options, origin)).toThrow(
      expect.objectContaining({ name: 'InvalidStateError' }),
    );
    // Another authenticator does not hold it, so it may register.
    const other = new SoftAuthenticator();
    expect(other.createCredential(options, origin).id).not.toBe(credential.id);
    // Excluding someone else's credential does not block this one.
    const unrelated = await registrationOptions({ excludeCredentials: [{ id: isoBase64URL.fromUTF8String('nope') }] });
    expect(() => authenticator.createCredential(unrelated, origin)).not.toThrow();
    expect(authenticator.credentials()).toHaveLength(2);
  });

  it('only does ES256, and only for an RP ID the origin may use', async () => {
    const authenticator = new SoftAuthenticator();
    const rsaOnly = await registrationOptions({ supportedAlgorithmIDs: [-257, -8] });
    expect(() => authenticator.createCredential(rsaOnly, origin)).toThrow(
      expect.objectContaining({ name: 'NotSupportedError' }),
    );
    const options = await registrationOptions();
    expect(() => authenticator.createCredential(options, 'http://127.0.0.1:1234')).toThrow(
      expect.objectContaining({ name: 'SecurityError' }),
    );
    expect(authenticator.credentials()).toEqual([]);
  });
});

describe('SoftAuthenticator authentication', () => {
  it('produces assertions the server verifies, counting 1 then 2', async () => {
    const authenticator = new SoftAuthenticator();
    const { credential, options: regOptions } = await register(authenticator);

    const first = await authenticate(authenticator, credential);
    const body = first.response;
    expect(body.id).toBe(credential.id);
    expect(body.rawId).toBe(credential.id);
    expect(body.type).toBe('public-key');
    expect(body.authenticatorAttachment).toBe('platform');
    expect(body.clientExtensionResults).toEqual({});
    expect(body.response.userHandle).toBe(regOptions.user.id);
    expect(body.response.signature).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(JSON.parse(isoBase64URL.toUTF8String(body.response.clientDataJSON))).toMatchObject({
      type: 'webauthn.get',
      origin,
      crossOrigin: false,
    });

    const one = await first.verify();
    expect(one.verified).toBe(true);
    expect(one.authenticationInfo).toMatchObject({ newCounter: 1, credentialID: credential.id, userVerified: true, rpID, origin });
    credential.counter = one.authenticationInfo.newCounter;

    const two = await (await authenticate(authenticator, credential)).verify();
    expect(two.verified).toBe(true);
    expect(two.authenticationInfo.newCounter).toBe(2);
    expect(authenticator.exportCredential(credential.id).signCount).toBe(2);
  });

  it('tweaked origin, challenge, type and RP ID fail verification', async () => {
    const authenticator = new SoftAuthenticator();
    const { credential } = await register(authenticator);
    const cases = [
      [{ origin: 'http://localhost:9999' }, 'Unexpected authentication response origin'],
      [{ challenge: isoBase64URL.fromUTF8String('replayed') }, 'Unexpected authentication response challenge'],
      [{ type: 'webauthn.create' }, 'Unexpected authentication response type'],
      [{ rpId: 'example.com' }, 'Unexpected RP ID hash'],
      [{ userVerification: false }, 'User verification required'],
      [{ userPresence: false }, 'User not present'],
    ] as const;
    for (const [tweaks, message] of cases) {
      const { verify } = await authenticate(authenticator, credential, tweaks);
      await expect(verify()).rejects.toThrow(message);
    }
  });

  it('a signature from another key is not verified (verified: false, no throw)', async () => {
    const authenticator = new SoftAuthenticator();
    const { credential } = await register(authenticator);
    const impostor = new SoftAuthenticator();
    const options = await registrationOptions();
    impostor.createCredential(options, origin, { credentialId: credential.id });
    const { verify } = await authenticate(impostor, credential);
    expect((await verify()).verified).toBe(false);
  });

  it('rejects a counter that does not increase when either side is non-zero', async () => {
    const authenticator = new SoftAuthenticator();
    const { credential } = await register(authenticator);
    credential.counter = 5;
    for (const counter of [5, 4, 0]) {
      const { verify } = await authenticate(authenticator, credential, { counter });
      await expect(verify()).rejects.toThrow(`Response counter value ${counter} was lower than expected 5`);
    }
    const ok = await (await authenticate(authenticator, credential, { counter: 6 })).verify();
    expect(ok.authenticationInfo.newCounter).toBe(6);
    // The tweak set the authenticator's counter: it carries on from there.
    expect(authenticator.exportCredential(credential.id).signCount).toBe(6);

    // Both zero (an authenticator without a counter, like synced passkeys): accepted every time.
    credential.counter = 0;
    for (let i = 0; i < 2; i++) {
      const zero = await (await authenticate(authenticator, credential, { counter: 0 })).verify();
      expect(zero).toMatchObject({ verified: true, authenticationInfo: { newCounter: 0 } });
    }
  });

  it('export/import simulates a cloned authenticator the server detects by its counter', async () => {
    const original = new SoftAuthenticator();
    const { credential } = await register(original);
    const snapshot: SoftCredential = JSON.parse(JSON.stringify(original.exportCredential(credential.id)));
    const clone = new SoftAuthenticator();
    clone.importCredential(snapshot);
    expect(clone.credentials()).toEqual([credential.id]);

    for (let i = 1; i <= 2; i++) {
      const result = await (await authenticate(original, credential)).verify();
      credential.counter = result.authenticationInfo.newCounter;
    }
    expect(credential.counter).toBe(2);
    // The clone signs validly but with counter 1, which the server refuses.
    const { response, verify } = await authenticate(clone, credential);
    expect(isoBase64URL.toBuffer(response.response.authenticatorData)[36]).toBe(1);
    await expect(verify()).rejects.toThrow('Response counter value 1 was lower than expected 2');
    expect(() => original.exportCredential('unknown')).toThrow(/no credential/);
  });

  it('discoverable assertion (empty allowCredentials) picks a credential and returns its userHandle', async () => {
    const authenticator = new SoftAuthenticator();
    const alice = await register(authenticator);
    const bob = await register(authenticator, { userName: 'bob', userID: new TextEncoder().encode('user-bob') });
    // Another site's credential is never offered for localhost.
    const other = await generateRegistrationOptions({ rpName: 'Other', rpID: 'other.test', userName: 'x' });
    authenticator.createCredential(other, 'https://other.test');

    const options = await generateAuthenticationOptions({ rpID });
    expect(options.allowCredentials).toBeUndefined();
    // Like an account picker defaulting to the newest passkey for the site.
    const newest: AuthenticationResponseJSON = authenticator.getAssertion(options, origin);
    expect(newest.id).toBe(bob.credential.id);
    expect(newest.response.userHandle).toBe(bob.options.user.id);
    expect(new TextDecoder().decode(isoBase64URL.toBuffer(newest.response.userHandle!))).toBe('user-bob');

    // Choose the account by user handle; allowCredentials: [] behaves as absent.
    const { response, verify } = await authenticate(authenticator, alice.credential, { userHandle: alice.options.user.id }, []);
    expect(response.id).toBe(alice.credential.id);
    expect(response.response.userHandle).toBe(alice.options.user.id);
    expect((await verify()).verified).toBe(true);
  });

  it('discoverable login end to end, and NotAllowedError when nothing fits', async () => {
    const authenticator = new SoftAuthenticator();
    const { credential, options: regOptions } = await register(authenticator);
    const options = await generateAuthenticationOptions({ rpID });
    const response = authenticator.getAssertion(options, origin);
    expect(response.id).toBe(credential.id);
    expect(response.response.userHandle).toBe(regOptions.user.id);
    const result = await verifyAuthenticationResponse({
      response,
      expectedChallenge: options.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential,
    });
    expect(result).toMatchObject({ verified: true, authenticationInfo: { newCounter: 1 } });

    const notAllowed = expect.objectContaining({ name: 'NotAllowedError' });
    const empty = new SoftAuthenticator();
    expect(() => empty.getAssertion(options, origin)).toThrow(notAllowed);
    const unknown = await generateAuthenticationOptions({ rpID, allowCredentials: [{ id: 'AAAA' }] });
    expect(() => authenticator.getAssertion(unknown, origin)).toThrow(notAllowed);
    expect(() => authenticator.getAssertion(options, origin, { credentialId: 'AAAA' })).toThrow(notAllowed);
    // A non-discoverable credential is not offered without allowCredentials, and has no userHandle.
    const serverSide = new SoftAuthenticator();
    const reg = await register(serverSide, { authenticatorSelection: { residentKey: 'discouraged' } });
    expect(reg.response.clientExtensionResults).toEqual({ credProps: { rk: false } });
    expect(() => serverSide.getAssertion(options, origin)).toThrow(notAllowed);
    const { response: withAllow, verify } = await authenticate(serverSide, reg.credential);
    expect(withAllow.response.userHandle).toBeUndefined();
    expect((await verify()).verified).toBe(true);
  });

  it('forcing a credential id signs with that credential even if not allowed', async () => {
    const authenticator = new SoftAuthenticator();
    const a = await register(authenticator);
    const b = await register(authenticator);
    const options = await generateAuthenticationOptions({ rpID, allowCredentials: [{ id: a.credential.id }] });
    const response = authenticator.getAssertion(options, origin, { credentialId: b.credential.id });
    expect(response.id).toBe(b.credential.id);
    const result = await verifyAuthenticationResponse({
      response,
      expectedChallenge: options.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: b.credential,
    });
    expect(result.verified).toBe(true);
  });
});

it('convertAAGUIDToString agrees with the constructor input', () => {
  const authenticator = new SoftAuthenticator({ aaguid: aaguid.toUpperCase() });
  expect(authenticator.aaguid).toBe(aaguid);
  expect(convertAAGUIDToString(new Uint8Array(Buffer.from(aaguid.replace(/-/g, ''), 'hex')))).toBe(aaguid);
  expect(() => new SoftAuthenticator({ aaguid: 'nope' })).toThrow(/UUID/);
});
