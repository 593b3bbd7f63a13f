import { render } from 'preact';
import { App } from './views/app.js';
import { html } from './html.js';
import './style.css';

render(html`<${App} />`, document.getElementById('app')!);
