import { startAuthentication, startRegistration, WebAuthnError, type PublicKeyCredentialCreationOptionsJSON, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { api, ApiError } from '../api.js';

export type PasskeyOptions = PublicKeyCredentialRequestOptionsJSON;

/** The browser's dialog closed without a passkey (cancelled, timed out, none for this site): not the API's refusal. */
async function inBrowser<T>(ceremony: () => Promise<T>): Promise<T> {
  try {
    return await ceremony();
  } catch (failure) {
    if (failure instanceof WebAuthnError || (failure instanceof Error && failure.name === 'NotAllowedError')) {
      throw new ApiError(400, { code: 'PASSKEY_CANCELLED', detail: failure.message });
    }
    throw failure;
  }
}

/** A passkey alone: the browser offers the discoverable passkeys it holds for this site; the answer signs in. */
export async function signInWithPasskey(loginPath: string): Promise<void> {
  const optionsJSON = await api<PasskeyOptions>('POST', `${loginPath}/passkey/options`, { quietUnauthenticated: true });
  const passkey = await inBrowser(() => startAuthentication({ optionsJSON }));
  await api('POST', `${loginPath}/passkey`, { body: { passkey }, quietUnauthenticated: true });
}

/** The second step's options, bound to the pending sign-in kept in its cookie. */
export const secondStepPasskeyOptions = (loginPath: string) => api<PasskeyOptions>('POST', `${loginPath}/second-factor/passkey-options`, { body: {}, quietUnauthenticated: true });

export const passkeyAssertion = (optionsJSON: PasskeyOptions) => inBrowser(() => startAuthentication({ optionsJSON }));

/** A new passkey for the signed-in account; answers the recovery codes when it is the first factor. */
export async function addPasskey(accountPath: string, name: string | undefined): Promise<{ recoveryCodes: string[] | null }> {
  const optionsJSON = await api<PublicKeyCredentialCreationOptionsJSON>('POST', `${accountPath}/second-factors/passkeys/options`);
  const response = await inBrowser(() => startRegistration({ optionsJSON }));
  return api('POST', `${accountPath}/second-factors/passkeys`, { body: { response, ...(name ? { name } : {}) } });
}
