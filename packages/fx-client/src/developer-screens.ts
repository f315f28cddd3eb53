/**
 * The developer dashboard's screens, each at `/developers/<screen>` (Arabic) and
 * `/{lang}/developers/<screen>`; bare `/developers` is the first screen that fits (keys when
 * signed in, sign-up otherwise). Held here because the server answers exactly these paths with
 * the dashboard's HTML and the dashboard routes between them. `forgot` asks for a reset link by mail;
 * `reset#<token>` is that link, and `verify#<token>` the sign-up's.
 */
export const DEVELOPER_SCREENS = ['sign-up', 'sign-in', 'forgot', 'reset', 'verify', 'keys', 'alerts', 'usage', 'plan'] as const;
export type DeveloperScreen = (typeof DEVELOPER_SCREENS)[number];
