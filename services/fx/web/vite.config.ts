import { webAppViteConfig } from '@svc/web-ui/vite';

// Run with the web directory as root: `vite build web` / `vite web` (beside fx, see dev.mjs) from services/fx.
export default webAppViteConfig({
  app: 'web',
  // The public rates page is the site's root.
  base: '/',
  themeColor: '#0f5132',
  devPort: 5173,
  apiPort: 3002,
});
