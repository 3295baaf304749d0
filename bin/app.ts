import { App } from 'aws-cdk-lib';
import { TempmailStack } from '../lib/tempmail-stack';

const app = new App();
const stage = String(app.node.tryGetContext('stage') ?? 'prod');
new TempmailStack(app, `Tempmail-${stage}`, { stage });
