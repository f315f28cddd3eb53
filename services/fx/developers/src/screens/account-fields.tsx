import type { DeveloperScreen } from '@svc/fx-client/types';
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Messages } from '../i18n/messages.js';

export type Go = (screen: DeveloperScreen) => void;

/** A move to another signed-out screen: a button, since the dashboard routes itself. */
export function ScreenLink({ screen, go, children }: { screen: DeveloperScreen; go: Go; children: string }) {
  return (
    <button type="button" class="link-button" onClick={() => go(screen)}>
      {children}
    </button>
  );
}

/** A refusal, read out when it appears; nothing while there is none. */
export function FormError({ text, testId }: { text: string | null; testId?: string }) {
  if (!text) return null;
  return (
    <p class="field-error" role="alert" data-testid={testId}>
      {text}
    </p>
  );
}

export function BackToSignIn({ t, go }: { t: Messages; go: Go }) {
  return (
    <p class="note">
      <ScreenLink screen="sign-in" go={go}>
        {t.backToSignIn}
      </ScreenLink>
    </p>
  );
}

export function EmailField({ t, value, onInput }: { t: Messages; value: string; onInput: (value: string) => void }) {
  return (
    <label class="field">
      <span>{t.email}</span>
      <input type="email" name="email" required autoComplete="email" value={value} onInput={(event) => onInput(event.currentTarget.value)} />
    </label>
  );
}

interface PasswordFieldProps {
  t: Messages;
  label: string;
  /** A new password gets the rules beside the field (the API's: 12 to 256 characters) and the browser's new-password autofill. */
  newPassword: boolean;
  value: string;
  onInput: (value: string) => void;
}

export function PasswordField({ t, label, newPassword, value, onInput }: PasswordFieldProps) {
  return (
    <>
      <label class="field">
        <span>{label}</span>
        <input
          type="password"
          name="password"
          required
          minLength={newPassword ? 12 : undefined}
          maxLength={256}
          autoComplete={newPassword ? 'new-password' : 'current-password'}
          aria-describedby={newPassword ? 'password-rule' : undefined}
          value={value}
          onInput={(event) => onInput(event.currentTarget.value)}
        />
      </label>
      {newPassword && (
        <p id="password-rule" class="note">
          {t.passwordRule}
        </p>
      )}
    </>
  );
}

/** A form of the account screens: its fields, then one submit button, held disabled while `onSubmit` runs. */
export function AccountForm({ testId, submitLabel, onSubmit, children }: { testId: string; submitLabel: string; onSubmit: () => Promise<void>; children: ComponentChildren }) {
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="stack"
      data-testid={testId}
      onSubmit={(event) => {
        event.preventDefault();
        setBusy(true);
        void onSubmit().finally(() => setBusy(false));
      }}
    >
      {children}
      <button type="submit" class="primary" disabled={busy}>
        {submitLabel}
      </button>
    </form>
  );
}
