// Placeholder so the portal shell compiles; the reports screen replaces it.
export function ReportsArea(props: { subpath: string }) {
  return <section data-subpath={props.subpath}>Reports</section>;
}
