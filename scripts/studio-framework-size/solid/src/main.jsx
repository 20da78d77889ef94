import { render } from 'solid-js/web';
import Shell from '~shell';

render(() => <Shell />, document.getElementById('app'));
