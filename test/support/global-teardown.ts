import type { Config } from '@jest/types';
import { documentedPairs } from './contract';
import { finishContractCoverage } from './contract-coverage';
import { finishPermissionCheck } from './permission-check';
import { removeRunScratch } from './run-scratch';
import { stackSynthesisSettled } from './stack-synthesis';

export default async function globalTeardown(globalConfig: Config.GlobalConfig): Promise<void> {
  await stackSynthesisSettled();
  try {
    await finishPermissionCheck();
  } finally {
    try {
      finishContractCoverage(globalConfig, documentedPairs);
    } finally {
      removeRunScratch();
    }
  }
}
