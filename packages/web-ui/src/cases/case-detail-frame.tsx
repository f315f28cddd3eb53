import type { ComponentChildren } from 'preact';
import { ErrorNotice, Loading } from '../components/index.js';
import { Link } from '../router.js';

/**
 * The frame of one case's page in the portal and the console: the way back to the list, the
 * load's failure or progress, then the case (children, once loaded). Its heading carries the
 * id `case-title`, which names the section.
 */
export function CaseDetailFrame(props: { class: string; backHref: string; backLabel: string; error: unknown; loading: boolean; children: ComponentChildren }) {
  return (
    <section class={props.class} aria-labelledby="case-title">
      <p class="back-link">
        <Link href={props.backHref}>{props.backLabel}</Link>
      </p>
      {props.error ? <ErrorNotice error={props.error} /> : null}
      {props.loading ? <Loading /> : null}
      {props.children}
    </section>
  );
}
