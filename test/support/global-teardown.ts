import type { Config } from '@jest/types';
import { documentedPairs } from './contract';
import { finishContractCoverage } from './contract-coverage';
import { finishPermissionCheck } from './permission-check';
import { stackSynthesisSettled } from './stack-synthesis';

export default async function globalTeardown(globalConfig: Config.GlobalConfig): Promise<void> {
  await stackSynthesisSettled();
  try {
    await finishPermissionCheck();
  } finally {
    finishContractCoverage(globalConfig, documentedPairs);
  }
}
