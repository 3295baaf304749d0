import type { Config } from '@jest/types';
import { documentedPairs } from './contract';
import { finishContractCoverage } from './contract-coverage';
import { finishPermissionCheck } from './permission-check';

export default async function globalTeardown(globalConfig: Config.GlobalConfig): Promise<void> {
  try {
    await finishPermissionCheck();
  } finally {
    finishContractCoverage(globalConfig, documentedPairs);
  }
}
