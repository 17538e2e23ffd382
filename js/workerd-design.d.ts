// Types of js/workerd-design.js ('privlift/design' under the `workerd` export condition): the same API.
export * from './design.js';
