import { startPermissionCheck } from './permission-check';

export default function globalSetup(): void {
  startPermissionCheck();
}
