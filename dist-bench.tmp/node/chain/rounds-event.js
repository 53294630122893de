export {};
//# sourceMappingURL=rounds-event.js.map