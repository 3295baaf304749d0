import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { stackPropsFromContext } from '../lib/app-props';
import { TempmailStack } from '../lib/tempmail-stack';

const app = new App();
const props = stackPropsFromContext(app);
new TempmailStack(app, `Tempmail-${props.stage}`, props);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
