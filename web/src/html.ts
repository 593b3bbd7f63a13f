import { h } from 'preact';
import htm from 'htm';

/** Preact templates as tagged template literals (htm): no JSX transform in the build. */
export const html = htm.bind(h);
