import { webAppViteConfig } from '@svc/web-ui/vite';

// Run with the console directory as root: `vite build console` / `vite console` from services/identity.
// identity serves the page at /console and every path below it, the hashed assets at /console/assets/.
export default webAppViteConfig({ app: 'console', themeColor: '#1d3557', devPort: 5175, apiPort: 3001 });
