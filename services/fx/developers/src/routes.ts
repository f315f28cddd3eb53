import { DEVELOPER_SCREENS, RATE_LANGUAGES, type DeveloperScreen, type Language } from '@svc/fx-client/types';

export interface Route {
  language: Language;
  /** null: bare /developers, which shows the first screen that fits. */
  screen: DeveloperScreen | null;
}

/** `/developers[/screen]` is Arabic; `/{lang}/developers[/screen]` any of the six (the server answers no other path). */
export function routeOf(pathname: string): Route {
  const [first, second, third] = pathname.split('/').filter((segment) => segment.length > 0);
  const prefixed = first !== 'developers';
  const language = prefixed && (RATE_LANGUAGES as readonly string[]).includes(first ?? '') ? (first as Language) : 'ar';
  const screen = prefixed ? third : second;
  return { language, screen: (DEVELOPER_SCREENS as readonly string[]).includes(screen ?? '') ? (screen as DeveloperScreen) : null };
}

export function pathOf(language: Language, screen: DeveloperScreen | null): string {
  const base = language === 'ar' ? '/developers' : `/${language}/developers`;
  return screen ? `${base}/${screen}` : base;
}

/**
 * Screens shown signed in or not, without asking who is signed in first: the mailed links (the
 * verify link signs in itself; a reset ends the account's sessions) and the request for a reset link.
 */
const LINK_SCREENS: readonly DeveloperScreen[] = ['verify', 'forgot', 'reset'];
const isLinkScreen = (screen: DeveloperScreen | null): screen is DeveloperScreen => screen !== null && LINK_SCREENS.includes(screen);

/** Screens that need a session, and those that make no sense with one. */
export const SIGNED_IN_SCREENS = ['keys', 'alerts', 'usage', 'plan'] as const satisfies readonly DeveloperScreen[];
const SIGNED_OUT_SCREENS: readonly DeveloperScreen[] = ['sign-up', 'sign-in'];

/** The screen to show for a route, given whether someone is signed in. */
export function screenFor(requested: DeveloperScreen | null, signedIn: boolean): DeveloperScreen {
  if (requested === null) return signedIn ? 'keys' : 'sign-up';
  if (!signedIn && (SIGNED_IN_SCREENS as readonly DeveloperScreen[]).includes(requested)) return 'sign-in';
  if (signedIn && SIGNED_OUT_SCREENS.includes(requested)) return 'keys';
  return requested;
}

/** Whether a route's screen can be shown before the session is known. */
export const needsNoSession = (route: Route) => isLinkScreen(route.screen);
