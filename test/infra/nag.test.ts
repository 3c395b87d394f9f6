import { describe, expect, it } from '@jest/globals';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { importStage, PROD, synth } from './support.js';

// synth() runs the AwsSolutions checks registered by buildService; a finding fails the synthesis.
describe('cdk-nag AwsSolutions', () => {
  it.each([
    ['dev', {}],
    ['prod', PROD],
    ['import', { stages: { dev: importStage } }],
    [
      'domain',
      { stages: { dev: { domain: { name: 'api.example.com', certificateArn: 'arn:aws:acm:eu-west-1:111111111111:certificate/abc' } } } },
    ],
    ['bastion', { stages: { dev: { bastion: true } } }],
    ['import + bastion', { stages: { dev: { ...importStage, bastion: true } } }],
  ])('%s: every finding is fixed or acknowledged', (_name, context) => {
    expect(() => synth(context, { account: '111111111111', region: 'eu-west-1' })).not.toThrow();
  });

  it('an unacknowledged finding fails the synthesis', () => {
    const s = synth();
    new sqs.Queue(s.stateless, 'Unencrypted', { encryption: sqs.QueueEncryption.UNENCRYPTED });
    expect(() => s.app.synth({ force: true })).toThrow();
  });
});
