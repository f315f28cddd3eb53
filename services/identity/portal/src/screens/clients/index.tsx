// First cut so the shell compiles; the clients screen replaces it.
export function ClientsScreen() {
  return <section>OAuth clients</section>;
}
