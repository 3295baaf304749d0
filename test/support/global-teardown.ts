import { finishPermissionCheck } from './permission-check';

export default async function globalTeardown(): Promise<void> {
  await finishPermissionCheck();
}
