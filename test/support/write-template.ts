import { writeFileSync } from 'node:fs';
import { synthesizeTemplate } from './synthesized-template';

// Synthesizes the template for the permission check in its own process, while the suites run.
writeFileSync(process.argv[2]!, JSON.stringify(synthesizeTemplate()));
