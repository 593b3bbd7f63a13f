export { toleratesTaint, tolerationsTolerateTaint } from '../../../machinery/node-selection.js';
