// Placeholder so the portal shell compiles; the cases screens replace it.
export function CasesArea(props: { subpath: string }) {
  return <section data-subpath={props.subpath}>Cases</section>;
}
