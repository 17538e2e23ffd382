// Types of js/workerd-continuous.js ('privlift/continuous' under the `workerd` export condition): the same API.
export * from './continuous.js';
