// Tests run quietly and never pick up an operator's environment by accident.
process.env.SVC_ENV ??= 'test'
process.env.LOG_LEVEL ??= 'silent'
