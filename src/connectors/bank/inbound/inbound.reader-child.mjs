// The entry of the process that reads a large bank file (inbound.reader.ts): the TypeScript sources
// run through tsx in it as in the process that starts it, whatever started that process.
import { register } from 'tsx/esm/api';

register();
await import('./inbound.reader-child.ts');
