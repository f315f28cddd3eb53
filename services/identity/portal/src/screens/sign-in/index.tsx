import { useMessages } from '@svc/web-ui/i18n';
import { signInMessages } from '@svc/web-ui/sign-in/messages';
import { SignInForm } from '@svc/web-ui/sign-in/sign-in-form';
import { completeSecondStep, loadSession, type PortalSession, signIn } from '../../session.js';

export function SignInScreen(props: { onSignedIn: (session: PortalSession) => void }) {
  const t = useMessages(signInMessages);
  return <SignInForm title={t('title')} intro={t('intro')} loginPath="/portal/login" forgotPasswordHref="/password-reset" signIn={signIn} completeSecondStep={completeSecondStep} loadSession={loadSession} onSignedIn={props.onSignedIn} />;
}
