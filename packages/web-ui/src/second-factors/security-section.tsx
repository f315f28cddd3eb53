import { useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';
import { ErrorNotice, Loading, QrCanvas, useAsync } from '../components/index.js';
import { formatDateTime } from '../format.js';
import { useLanguage, useMessages } from '../i18n.js';
import { secondFactorMessages } from './messages.js';
import { PasskeyList } from './passkey-list.js';
import type { SecondFactorList } from '@svc/identity-client/types';

type FactorList = SecondFactorList;

/**
 * The account's second factors, for the portal and the console alike: `accountPath` is where
 * the API serves them (/portal/account or /account). `onEnrolled` runs after the first factor.
 * `pageHeading`: the section is the whole screen (the console's), so its title is the page's h1.
 */
export function SecuritySection(props: { accountPath: string; enrolmentOnly?: boolean; onEnrolled?: () => void; pageHeading?: boolean }) {
  const Heading = props.pageHeading ? 'h1' : 'h2';
  const t = useMessages(secondFactorMessages);
  const { language } = useLanguage();
  const factors = useAsync(() => api<FactorList>('GET', `${props.accountPath}/second-factors`), [props.accountPath]);
  const [enrolment, setEnrolment] = useState<{ secret: string; otpauthUri: string }>();
  const [recoveryCodes, setRecoveryCodes] = useState<string[]>();
  const [error, setError] = useState<unknown>();
  const act = async (action: () => Promise<void>) => {
    setError(undefined);
    try {
      await action();
    } catch (failure) {
      setError(failure);
    }
  };
  const totp = factors.data?.items.find((factor) => factor.kind === 'totp');

  return (
    <section class="card account-card" aria-labelledby="security-heading" data-testid="security-section">
      <Heading id="security-heading">{t('heading')}</Heading>
      <p class="muted">{props.enrolmentOnly ? t('enrolmentRequired') : t('intro')}</p>
      {error !== undefined && <ErrorNotice error={error} />}
      {factors.error !== undefined && <ErrorNotice error={factors.error} onRetry={factors.reload} />}
      {!factors.data && factors.loading && <Loading />}
      {recoveryCodes && (
        <div class="notice notice-warning" role="status" data-testid="recovery-codes">
          <h3>{t('recoveryHeading')}</h3>
          <p>{t('recoveryShownOnce')}</p>
          <ul class="recovery-codes" dir="ltr">
            {recoveryCodes.map((code) => (
              <li key={code}>
                <code>{code}</code>
              </li>
            ))}
          </ul>
          <button type="button" class="button" onClick={() => (setRecoveryCodes(undefined), props.onEnrolled?.())}>
            {t('done')}
          </button>
        </div>
      )}
      {factors.data && (
        <>
          <h3>{t('appHeading')}</h3>
          {totp ? (
            <p>
              {t('appOn', { date: formatDateTime(totp.createdAt, language) })}{' '}
              <button type="button" class="button button-danger" onClick={() => void act(async () => (await api('DELETE', `${props.accountPath}/second-factors/${totp.id}`), factors.reload()))}>
                {t('remove')}
              </button>
            </p>
          ) : enrolment ? (
            <TotpEnrolment
              accountPath={props.accountPath}
              enrolment={enrolment}
              onCancel={() => setEnrolment(undefined)}
              onConfirmed={(codes) => {
                setEnrolment(undefined);
                factors.reload();
                if (codes) setRecoveryCodes(codes);
                else props.onEnrolled?.();
              }}
            />
          ) : (
            <p>
              {t('appOff')}{' '}
              <button type="button" class="button button-primary" onClick={() => void act(async () => setEnrolment(await api('POST', `${props.accountPath}/second-factors/totp`)))}>
                {t('setUpApp')}
              </button>
            </p>
          )}
          <PasskeyList
            accountPath={props.accountPath}
            passkeys={factors.data.items.filter((factor) => factor.kind === 'passkey')}
            onChanged={(codes) => {
              factors.reload();
              if (codes) setRecoveryCodes(codes);
              else if (codes === null) props.onEnrolled?.();
            }}
            onError={setError}
          />
          {factors.data.items.length > 0 && !props.enrolmentOnly && (
            <p>
              {t('recoveryLeft', { count: factors.data.recoveryCodesLeft })}{' '}
              <button
                type="button"
                class="button"
                onClick={() => void act(async () => (setRecoveryCodes((await api<{ recoveryCodes: string[] }>('POST', `${props.accountPath}/recovery-codes`)).recoveryCodes), factors.reload()))}
              >
                {t('regenerate')}
              </button>
            </p>
          )}
        </>
      )}
    </section>
  );
}

function TotpEnrolment(props: { accountPath: string; enrolment: { secret: string; otpauthUri: string }; onCancel: () => void; onConfirmed: (recoveryCodes: string[] | null) => void }) {
  const t = useMessages(secondFactorMessages);
  const [code, setCode] = useState('');
  const [error, setError] = useState<unknown>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      const { recoveryCodes } = await api<{ recoveryCodes: string[] | null }>('POST', `${props.accountPath}/second-factors/totp/confirm`, { body: { code: code.replace(/\s/g, '') } });
      props.onConfirmed(recoveryCodes);
    } catch (failure) {
      setError(failure);
      setCode('');
    }
  };
  return (
    <form onSubmit={(event) => void submit(event)} data-testid="totp-enrolment">
      <p>{t('scan')}</p>
      <QrCanvas text={props.enrolment.otpauthUri} label={t('qrLabel')} testId="totp-qr" />
      <p>
        {t('secretLabel')}: <code dir="ltr" data-testid="totp-secret">{props.enrolment.secret}</code>
      </p>
      {error !== undefined &&
        (error instanceof ApiError && error.code === 'INVALID_CODE' ? (
          <div class="notice notice-error" role="alert" data-code="INVALID_CODE">
            <p>{t('invalidCode')}</p>
          </div>
        ) : (
          <ErrorNotice error={error} />
        ))}
      <div class="field">
        <label for="totp-code">{t('confirmCode')}</label>
        <input id="totp-code" name="code" required dir="ltr" inputMode="numeric" autocomplete="one-time-code" value={code} onInput={(event) => setCode(event.currentTarget.value)} />
      </div>
      <button type="submit" class="button button-primary">
        {t('confirm')}
      </button>{' '}
      <button type="button" class="button" onClick={props.onCancel}>
        {t('cancel')}
      </button>
    </form>
  );
}
