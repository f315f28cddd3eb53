import { useMessages } from '../../../../web-shared/i18n.js';
import { signInMessages } from '../../../../web-shared/sign-in/messages.js';
import { SignInForm } from '../../../../web-shared/sign-in/sign-in-form.js';
import { completeSecondStep, loadSession, type PortalSession, signIn } from '../../session.js';

export function SignInScreen(props: { onSignedIn: (session: PortalSession) => void }) {
  const t = useMessages(signInMessages);
  return <SignInForm title={t('title')} intro={t('intro')} loginPath="/portal/login" forgotPasswordHref="/password-reset" signIn={signIn} completeSecondStep={completeSecondStep} loadSession={loadSession} onSignedIn={props.onSignedIn} />;
}
