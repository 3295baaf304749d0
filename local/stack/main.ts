import { runProcess } from '../run-process';
import { startStack } from './start-stack';

/** `npm run start:stack`: the synthesized stack on this machine until SIGINT or SIGTERM. */
runProcess((config) => startStack(config));
