import { mount } from 'svelte';
import Shell from '~shell';

mount(Shell, { target: document.getElementById('app') });
