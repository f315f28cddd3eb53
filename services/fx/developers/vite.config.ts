import { webAppViteConfig } from '@svc/web-ui/vite';

// Run with this directory as root: `vite build developers` / `vite developers` (beside fx, see ../web/dev.mjs) from services/fx.
export default webAppViteConfig({
  app: 'developers',
  themeColor: '#0f5132',
  devPort: 5174,
  apiPort: 3002,
});
