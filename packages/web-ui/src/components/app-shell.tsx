import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { Link } from '../router.js';
import { LanguageToggle } from './language-toggle.js';

export interface ShellSection {
  key: string;
  label: string;
}

export interface AppShellProps {
  /** The app's name, first in the header and last in the window title. */
  appName: string;
  /** Beside the app's name (the portal's tenant). */
  brandDetail?: ComponentChildren;
  /** Above the header (the portal's sandbox banner). */
  banner?: ComponentChildren;
  /** Words of the shell itself, in the page's language. */
  labels: { skip: string; account: string; signOut: string; navigation: string };
  email: string;
  emailTestId: string;
  role: string;
  roleLabel: string;
  sections: readonly ShellSection[];
  /** The section the screen belongs to (aria-current), if any. */
  current: string | undefined;
  /** The window title's middle parts after the section's label (the portal's tenant name). */
  titleParts?: readonly string[];
  onSignOut: () => void;
  /** Between the navigation and the screen (the portal's read-only note). */
  note?: ComponentChildren;
  children: ComponentChildren;
}

/**
 * The frame of a signed-in web app: a skip link, the header (app, who is signed in with which
 * role, the language, sign out), the sections, and the screen in a focusable <main>. The window
 * title follows the section, so a screen reader user and a tab strip both know where they are.
 */
export function AppShell(props: AppShellProps) {
  const currentLabel = props.sections.find((section) => section.key === props.current)?.label;
  const title = [...(currentLabel ? [currentLabel] : []), ...(props.titleParts ?? []), props.appName].join(' · ');
  useEffect(() => {
    document.title = title;
  }, [title]);
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        {props.labels.skip}
      </a>
      {props.banner}
      <header class="top-bar">
        <div class="brand">
          <span class="brand-name">{props.appName}</span>
          {props.brandDetail}
        </div>
        <div class="account">
          <span class="visually-hidden">{props.labels.account}</span>
          <span class="user-email" data-testid={props.emailTestId}>
            {props.email}
          </span>
          <span class={`role role-${props.role}`} title={props.role}>
            {props.roleLabel}
          </span>
          <LanguageToggle />
          <button type="button" class="button button-quiet" onClick={props.onSignOut}>
            {props.labels.signOut}
          </button>
        </div>
      </header>
      <nav class="sections" aria-label={props.labels.navigation}>
        <ul>
          {props.sections.map((section) => (
            <li key={section.key}>
              <Link href={`/${section.key}`} class="section-link" aria-current={props.current === section.key ? 'page' : undefined}>
                {section.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {props.note}
      <main id="main" class="content" tabIndex={-1}>
        {props.children}
      </main>
    </div>
  );
}
