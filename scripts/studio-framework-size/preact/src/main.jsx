import { render } from 'preact';
import Shell from '~shell';

render(<Shell />, document.getElementById('app'));
