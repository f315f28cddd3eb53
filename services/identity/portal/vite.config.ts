import { webAppViteConfig } from '@svc/web-ui/vite';

// Run with the portal directory as root: `vite build portal` / `vite portal` from services/identity.
// identity serves the page at /portal and every path below it, the hashed assets at /portal/assets/.
export default webAppViteConfig({ app: 'portal', themeColor: '#1d3557', devPort: 5174, apiPort: 3001 });
