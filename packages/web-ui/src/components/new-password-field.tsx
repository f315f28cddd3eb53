/** A password being chosen: the server's rules (12 to 256 characters) checked by the browser first, with its hint. */
export function NewPasswordField(props: { id: string; label: string; hint: string; value: string; onInput: (value: string) => void }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="password"
        autocomplete="new-password"
        required
        minLength={12}
        maxLength={256}
        dir="ltr"
        aria-describedby={`${props.id}-hint`}
        value={props.value}
        onInput={(event) => props.onInput(event.currentTarget.value)}
      />
      <p id={`${props.id}-hint`} class="muted">
        {props.hint}
      </p>
    </div>
  );
}
