import { LanguageSelect, type LanguageSelectProps } from './language-select.js';

export interface PageHeaderProps<Code extends string> {
  /** The id the skip link jumps to (the main content's heading or landmark). */
  skipTo: string;
  skipLabel: string;
  title: string;
  lead: string;
  language: LanguageSelectProps<Code>;
}

/** A page's skip link and banner: its title, one line saying what it is for, and the language menu. */
export function PageHeader<Code extends string>({ skipTo, skipLabel, title, lead, language }: PageHeaderProps<Code>) {
  return (
    <>
      <a class="skip-link" href={`#${skipTo}`}>
        {skipLabel}
      </a>
      <header class="page-header">
        <div>
          <h1>{title}</h1>
          <p class="lead">{lead}</p>
        </div>
        <LanguageSelect {...language} />
      </header>
    </>
  );
}
