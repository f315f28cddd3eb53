import { render } from 'preact';
import { setApiBase } from '@svc/web-ui/api';
import { setBasePath } from '@svc/web-ui/router';
import { App } from './app.js';
import '@svc/web-ui/styles.css';
import '@svc/web-ui/cases/cases.css';
import './console.css';

// The console calls the internal review API with the staff session cookie, never the partner API.
setApiBase('/api/internal/v1');
setBasePath('/console');

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
