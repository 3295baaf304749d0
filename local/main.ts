import { runProcess } from './run-process';
import { startLocal } from './start-local';

/** `npm start`: the whole service on this machine until SIGINT or SIGTERM. */
runProcess((config) => startLocal(config));
