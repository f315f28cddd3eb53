import { render } from 'preact';
import { setApiBase } from '../../web-shared/api.js';
import { setBasePath } from '../../web-shared/router.js';
import { App } from './app.js';
import '../../web-shared/styles.css';
import '../../web-shared/cases/cases.css';
import './console.css';

// The console calls the internal review API with the staff session cookie, never the partner API.
setApiBase('/api/internal/v1');
setBasePath('/console');

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
