// Placeholder so the portal shell compiles; the webhooks screens replace it.
export function WebhooksArea(props: { subpath: string }) {
  return <section data-subpath={props.subpath}>Webhooks</section>;
}
