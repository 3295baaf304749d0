import { lambdaBlobServices } from '../composition/lambda-blob-services';
import { sweepExpired } from './sweep-expired';

/** The scheduled sweeper (every minute in AWS): deletes expired messages and their blobs. */
export const handler = async () => sweepExpired(lambdaBlobServices());
