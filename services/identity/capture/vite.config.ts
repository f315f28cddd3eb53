import { webAppViteConfig } from '@svc/web-ui/vite';

// Run with the capture directory as root: `vite build capture` / `vite capture` from services/identity.
// identity serves the page at /capture, the hashed assets at /capture/assets/.
export default webAppViteConfig({
  app: 'capture',
  themeColor: '#1d3557',
  // Opened on phones (often from a QR code): the page may fill the screen around a notch.
  viewport: 'width=device-width, initial-scale=1, viewport-fit=cover',
  devPort: 5176,
  apiPort: 3001,
});
