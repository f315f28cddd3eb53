export interface LanguageSelectProps<Code extends string> {
  /** The label, in the page's current language. */
  label: string;
  value: Code;
  languages: readonly Code[];
  /** Each language named in itself (its option carries its own `lang`), so its reader finds it whatever the page's language. */
  names: Readonly<Record<Code, string>>;
  onChange: (language: Code) => void;
  testId?: string;
}

/** The labelled language menu of a page offering more than two languages. */
export function LanguageSelect<Code extends string>({ label, value, languages, names, onChange, testId }: LanguageSelectProps<Code>) {
  return (
    <label class="language">
      <span>{label}</span>
      <select value={value} onChange={(event) => onChange(event.currentTarget.value as Code)} data-testid={testId}>
        {languages.map((code) => (
          <option key={code} value={code} lang={code}>
            {names[code]}
          </option>
        ))}
      </select>
    </label>
  );
}
