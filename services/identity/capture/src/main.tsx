import { render } from 'preact';
import { App } from './app.js';
import '@svc/web-ui/styles.css';
import './capture.css';

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
