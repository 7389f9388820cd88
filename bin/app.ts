#!/usr/bin/env node
/**
 * The CDK app: one ArthrStack for the service region named by context `region` (fir, gum, oak),
 * in the AWS region cdk.json maps it to, deployed as the stack `arthr-{region}` (with a nested
 * stack per area of routes). `npx cdk synth` needs no AWS credentials or network.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ArthrStack, settingsFromContext } from '../lib/stack.js';

const app = new App();
const settings = settingsFromContext(app.node);

new ArthrStack(app, 'ArthrStack', {
  settings,
  // Account from the CLI's credentials when there are any; otherwise the template stays
  // account-agnostic (nothing in the stack looks anything up).
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: settings.awsRegion },
  description: `Arthr identity verification service, region ${settings.serviceRegion}`,
});

// cdk-nag 3.x runs as a policy validation plugin: any finding not acknowledged in the stack
// (each acknowledgement states why) fails the synth. Acknowledgements are also written to the
// template metadata as an audit trail.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { writeSuppressionsToCloudFormation: true }));

app.synth();
