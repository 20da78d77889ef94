import { createRouter } from 'sv-router';
import List from './List.svelte';
import Form from './Form.svelte';
import Status from './Status.svelte';
import NotFound from './NotFound.svelte';

createRouter({ '/': List, '/new': Form, '/status': Status, '*': NotFound });
